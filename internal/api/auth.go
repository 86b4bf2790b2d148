package api

import (
	"encoding/base64"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// appKey is the c.Locals key of the authenticated app.
type appKey struct{}

// authenticate admits a request that carries an app's client_id and api_key with HTTP Basic
// authentication, and keeps the app in the request's locals for the handlers.
func (h *handler) authenticate(c *fiber.Ctx) error {
	clientID, apiKey, ok := basicAuth(c.Get(fiber.HeaderAuthorization))
	if !ok {
		return payouts.Errorf(payouts.EUnauthorized,
			"Authenticate with HTTP Basic: the app's client_id as the username and its api_key as the password.")
	}
	app, err := h.svc.Authenticate(c.UserContext(), clientID, apiKey)
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
