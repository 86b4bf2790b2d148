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
// handlers. An organization names the app it acts as with the Api-App-Id header.
//
// The right credentials always authenticate, whatever came before them from the same address or
// for the same client_id: the throttle never turns away the key it protects. Missing or wrong
// credentials count a failure against the client address and against the client_id they name;
// past Config.AuthFailures failures of either in Config.AuthFailureWindow, a further wrong attempt
// is answered too-many-requests with Retry-After instead of unauthorized. Both answers say only
// that the attempt failed, and an api_key is 256 random bits, so the throttle gives a guesser
// nothing to learn; it tells a misconfigured or hostile client to stop.
func (h *handler) authenticate(c *fiber.Ctx) error {
	clientID, apiKey, ok := basicAuth(c.Get(fiber.HeaderAuthorization))
	if !ok {
		return h.refuseCredentials(c, "", payouts.Errorf(payouts.EUnauthorized,
			"Authenticate with HTTP Basic: the app's client_id as the username and its api_key as the password."))
	}
	p, err := h.svc.Authenticate(c.UserContext(), clientID, apiKey, c.Get("Api-App-Id"))
	if payouts.ErrorCode(err) == payouts.EUnauthorized {
		return h.refuseCredentials(c, clientID, err)
	}
	if err != nil {
		return err
	}
	c.Locals(principalKey{}, p)
	return c.Next()
}

// maxCountedClientID bounds the client_ids the throttle counts: real ones are 35 characters, and
// a longer one (which never authenticates) must not make the counters hold kilobytes a key.
const maxCountedClientID = 64

// refuseCredentials counts a failed authentication against the client address and the client_id
// it named, and answers unauthorized, or too-many-requests once either had its fill of failures.
func (h *handler) refuseCredentials(c *fiber.Ctx, clientID string, unauthorized error) error {
	now := h.clock.Now()
	keys := []string{"address:" + h.proxies.ClientIP(c)}
	if clientID != "" && len(clientID) <= maxCountedClientID {
		keys = append(keys, "client:"+clientID)
	}
	var wait time.Duration
	for _, k := range keys {
		w, err := h.keyFailures.Take(c.UserContext(), k, now)
		if err != nil {
			return err
		}
		wait = max(wait, w)
	}
	if wait <= 0 {
		return unauthorized
	}
	secs := int((wait + time.Second - 1) / time.Second)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	return payouts.Errorf(payouts.ETooManyRequests,
		"Too many failed authentications from your address or for this client_id. Wait %d seconds before trying other credentials.", secs)
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
