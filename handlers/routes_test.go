package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/web"
)

// routeCase is one registered route, with its parameters filled in with real ids.
type routeCase struct {
	method, path, url string
	perm              web.Permission
}

// registeredRoutes enumerates Fiber's route stack: every route must have been registered with a
// permission, and each is returned ready to request.
func registeredRoutes(t *testing.T, h *harness, ids map[string]string) []routeCase {
	t.Helper()
	var out []routeCase
	for _, r := range h.srv.App.GetRoutes(true) {
		if r.Method == fiber.MethodHead {
			continue // Fiber adds HEAD beside each GET, with the same handlers
		}
		perm, ok := h.srv.Permission(r.Method, r.Path)
		if !ok {
			t.Errorf("route %s %s is in Fiber's stack but was not registered with a permission", r.Method, r.Path)
			continue
		}
		u := r.Path
		for prefix, id := range ids {
			if strings.HasPrefix(u, prefix+"/:id") {
				u = strings.Replace(u, ":id", id, 1)
			}
		}
		u = strings.Replace(u, "/*", "/js/app.js", 1)
		if strings.Contains(u, ":") {
			t.Fatalf("route %s has a parameter this test does not know how to fill", r.Path)
		}
		out = append(out, routeCase{method: r.Method, path: r.Path, url: u, perm: perm})
	}
	if len(out) < 10 {
		t.Fatalf("only %d routes found", len(out))
	}
	return out
}

func (a *agent) request(rc routeCase, form url.Values) response {
	a.h.t.Helper()
	if rc.method == fiber.MethodGet {
		return a.get(rc.url)
	}
	return a.post(rc.url, form)
}

// routesWithObjects makes one object of each kind a route's :id can name (user is the payee
// they are about, and transfer the one /transfers/:id names) and returns every route ready to
// request.
func routesWithObjects(t *testing.T, h *harness, user *payouts.User, transfer *payouts.Transfer) []routeCase {
	t.Helper()
	target, _ := h.addOperator("target@example.com", dashstore.RoleSupport)
	deposit := h.deposit(100_00)
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 10_00, Payee: &payouts.Payee{Email: "rita@example.com"}})
	flow := h.createFlow(payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepBackgroundCheck}}, UserID: user.ID})
	hook, err := h.payouts.CreateWebhookEndpoint(t.Context(), payouts.CreateWebhookEndpointRequest{URL: "https://hooks.example.com/in"})
	if err != nil {
		t.Fatal(err)
	}
	bulk := dashstore.BulkJob{AppID: h.env.AppID, FileHash: strings.Repeat("ab", 32), FileName: "routes.csv", Status: dashstore.BulkPreviewed}
	if _, err := h.store.CreateBulkJob(t.Context(), &bulk, []dashstore.BulkRow{{Row: 1, UserRef: user.ID, UserID: user.ID,
		Amount: 1_00, Method: "wallet"}}); err != nil {
		t.Fatal(err)
	}
	if transfer == nil {
		transfer = deposit
	}
	held, request := h.heldApproval(target), h.payoutRequest(user)
	key, err := h.payouts.CreateAPIKey(t.Context(), h.env.AppID, payouts.CreateAPIKeyRequest{Name: "routes"})
	if err != nil {
		t.Fatal(err)
	}
	return registeredRoutes(t, h, map[string]string{"/operators": target.ID, "/users": user.ID,
		"/transfers": transfer.ID, "/transactions": strconv.FormatInt(deposit.Transactions[0].ID, 10),
		"/payout-links": link.ID, "/flows": flow.ID, "/webhooks": hook.ID, "/bulk": bulk.ID,
		"/approvals": held.ID, "/payout-requests": request.ID, "/tax/forms": flow.ID,
		"/developers/keys": key.ID})
}

func TestEveryRouteChecksCSRFAndRole(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	routes := routesWithObjects(t, h, h.createUser("Rita", "Routes"), nil)

	agents := map[dashstore.Role]*agent{}
	for _, role := range dashstore.Roles {
		agents[role], _ = h.signedIn(role)
	}

	t.Run("unsafe routes need the CSRF token", func(t *testing.T) {
		admin := agents[dashstore.RoleAdmin]
		for _, rc := range routes {
			if rc.method == fiber.MethodGet {
				continue
			}
			for name, form := range map[string]url.Values{
				"no token":    {},
				"wrong token": {"_csrf": {"not-the-token"}},
			} {
				res := admin.postRaw(rc.url, form)
				if res.StatusCode != http.StatusForbidden {
					t.Errorf("%s %s with %s: status %d, want 403", rc.method, rc.url, name, res.StatusCode)
				}
			}
			// The header htmx sends works like the form field; a wrong one is refused too.
			res := admin.postRaw(rc.url, url.Values{}, web.CSRFHeader, "wrong")
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s with a wrong header: status %d, want 403", rc.method, rc.url, res.StatusCode)
			}
		}
	})

	t.Run("roles without the permission are refused", func(t *testing.T) {
		for _, rc := range routes {
			for _, role := range dashstore.Roles {
				if web.Can(role, rc.perm) {
					continue
				}
				res := agents[role].request(rc, url.Values{})
				if res.StatusCode != http.StatusForbidden {
					t.Errorf("%s %s as %s (needs %s): status %d, want 403", rc.method, rc.url, role, rc.perm, res.StatusCode)
				}
			}
		}
	})

	t.Run("signed-out visitors are sent to sign in", func(t *testing.T) {
		anon := h.agent()
		anon.get("/login") // a session with a CSRF token, so only the missing sign-in stops it
		for _, rc := range routes {
			if rc.perm == web.PermPublic {
				continue
			}
			res := anon.request(rc, url.Values{})
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
				t.Errorf("%s %s signed out: status %d to %q, want 303 to /login", rc.method, rc.url, res.StatusCode, res.Header.Get("Location"))
			}
		}
	})

	t.Run("roles with the permission get through", func(t *testing.T) {
		for _, rc := range routes {
			for _, role := range dashstore.Roles {
				if !web.Can(role, rc.perm) || rc.path == "/logout" {
					continue
				}
				// Deciding an approval also needs an approver role (configured, so not a
				// permission); approval_test.go checks that rule.
				if rc.method == fiber.MethodPost && !slices.Contains(testApprovals.Approvers, role) &&
					(strings.HasPrefix(rc.path, "/approvals/") || strings.HasPrefix(rc.path, "/payout-requests/")) {
					continue
				}
				res := agents[role].request(rc, url.Values{})
				if res.StatusCode == http.StatusForbidden || res.StatusCode >= 500 {
					t.Errorf("%s %s as %s: status %d\n%.500s", rc.method, rc.url, role, res.StatusCode, res.body)
				}
			}
		}
	})
}

func TestRegisterRefusesRoutesWithoutPermission(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ok := func(c *fiber.Ctx) error { return nil }
	for _, r := range []web.Route{
		{Method: fiber.MethodGet, Path: "/no-permission", Handler: ok},
		{Method: fiber.MethodGet, Path: "/unknown-permission", Perm: "root", Handler: ok},
		{Method: fiber.MethodGet, Path: "/no-handler", Perm: web.PermUsersRead},
		{Method: fiber.MethodGet, Path: "/audit", Perm: web.PermAuditRead, Handler: ok}, // already there
	} {
		if err := h.srv.Register([]web.Route{r}); err == nil {
			t.Errorf("Register(%s %s, perm %q) succeeded, want an error", r.Method, r.Path, r.Perm)
		}
	}
}
