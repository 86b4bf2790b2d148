package api

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// principalKey is the c.Locals key of the authenticated principal.
type principalKey struct{}

// authenticate admits a request that carries an app's or an organization's client_id and api_key
// with HTTP Basic authentication, and keeps the principal in the request's locals for the
// handlers. An organization names the app it acts as with the Api-App-Id header. After
// Config.AuthFailures missing or wrong credentials from one client address in
// Config.AuthFailureWindow, that address is answered too-many-requests until the window ends,
// without its credentials being checked; other addresses are unaffected.
func (h *handler) authenticate(c *fiber.Ctx) error {
	ip, now := h.proxies.ClientIP(c), h.clock.Now()
	if wait := h.keyFailures.Wait(ip, now); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		return payouts.Errorf(payouts.ETooManyRequests,
			"Too many failed authentications from your address. Wait %d seconds and try again.", secs)
	}
	clientID, apiKey, ok := basicAuth(c.Get(fiber.HeaderAuthorization))
	if !ok {
		h.keyFailures.Add(ip, now)
		return payouts.Errorf(payouts.EUnauthorized,
			"Authenticate with HTTP Basic: the app's client_id as the username and its api_key as the password.")
	}
	p, err := h.svc.Authenticate(c.UserContext(), clientID, apiKey, c.Get("Api-App-Id"))
	if payouts.ErrorCode(err) == payouts.EUnauthorized {
		h.keyFailures.Add(ip, now)
	}
	if err != nil {
		return err
	}
	c.Locals(principalKey{}, p)
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

// currentPrincipal is who authenticated the request, or nil before authentication.
func currentPrincipal(c *fiber.Ctx) *service.Principal {
	p, _ := c.Locals(principalKey{}).(*service.Principal)
	return p
}

// appID is the id of the app the request acts as; the routes that need one are behind requireApp.
func appID(c *fiber.Ctx) string { return currentPrincipal(c).AppID }

// organizationID is the id of the organization of the request's credentials.
func organizationID(c *fiber.Ctx) string { return currentPrincipal(c).OrganizationID }

// requireApp admits a request that acts as an app: app credentials, or organization credentials
// with the Api-App-Id header.
func (h *handler) requireApp(c *fiber.Ctx) error {
	if appID(c) == "" {
		return payouts.Errorf(payouts.EForbidden,
			"Organization credentials act on an app's objects only with the Api-App-Id header naming the app.")
	}
	return c.Next()
}

// requireOrganization admits a request made with organization credentials.
func (h *handler) requireOrganization(c *fiber.Ctx) error {
	if !currentPrincipal(c).Organization {
		return payouts.Errorf(payouts.EForbidden, "This endpoint takes organization credentials.")
	}
	return c.Next()
}

// pathApp lets organization credentials act as the app named by the path's app_id; for app
// credentials the handler checks the id against their app.
func (h *handler) pathApp(c *fiber.Ctx) error {
	p := currentPrincipal(c)
	if !p.Organization {
		return c.Next()
	}
	acting, err := h.svc.ActAs(c.UserContext(), *p, c.Params("app_id"))
	if err != nil {
		return err
	}
	c.Locals(principalKey{}, acting)
	return c.Next()
}
