package api

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// appKey is the c.Locals key of the authenticated app.
type appKey struct{}

// authenticate admits a request that carries an app's client_id and api_key with HTTP Basic
// authentication, and keeps the app in the request's locals for the handlers. After
// Config.AuthFailures missing or wrong credentials from one client address in
// Config.AuthFailureWindow, that address is answered too-many-requests until the window ends,
// without its credentials being checked; other addresses are unaffected.
func (h *handler) authenticate(c *fiber.Ctx) error {
	ip, now := h.proxies.ClientIP(c), h.clock.Now()
	if wait := h.keyFailures.wait(ip, now); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		return payouts.Errorf(payouts.ETooManyRequests,
			"Too many failed authentications from your address. Wait %d seconds and try again.", secs)
	}
	clientID, apiKey, ok := basicAuth(c.Get(fiber.HeaderAuthorization))
	if !ok {
		h.keyFailures.add(ip, now)
		return payouts.Errorf(payouts.EUnauthorized,
			"Authenticate with HTTP Basic: the app's client_id as the username and its api_key as the password.")
	}
	app, err := h.svc.Authenticate(c.UserContext(), clientID, apiKey)
	if payouts.ErrorCode(err) == payouts.EUnauthorized {
		h.keyFailures.add(ip, now)
	}
	if err != nil {
		return err
	}
	c.Locals(appKey{}, app)
	return c.Next()
}

// basicAuth reads the credentials of an Authorization header, as net/http's Request.BasicAuth.
func basicAuth(header string) (username, password string, ok bool) {
	const prefix = "basic "
	if len(header) < len(prefix) || !strings.EqualFold(header[:len(prefix)], prefix) {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(header[len(prefix):]))
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(raw), ":")
}

// currentApp is the app that authenticated the request, or nil before authentication.
func currentApp(c *fiber.Ctx) *payouts.App {
	app, _ := c.Locals(appKey{}).(*payouts.App)
	return app
}

// appID is the id of the app that authenticated the request; every handler behind
// authenticate has one.
func appID(c *fiber.Ctx) string { return currentApp(c).ID }
