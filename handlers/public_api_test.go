package handlers_test

import (
	"context"
	"html"
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

// backends are the two services the dashboard runs against: our Payout Service, and a strict
// stand-in for the public Dots API in front of it (no extensions).
var backends = []struct {
	name   string
	public bool
}{{"payoutd", false}, {"public API", true}}

// apiNote marks the one-line note a page shows where the service lacks an extension.
const apiNote = `data-testid="api-note"`

// downloadsOfGeneratedForms are files that exist only once a year's 1099-NEC forms are generated
// (a Copy B, the IRIS file); TestBrowserTaxYear and the TestTax handler tests download them.
var downloadsOfGeneratedForms = []string{"/tax/forms/:id/pdf", "/tax/iris"}

// TestEveryPageOnBothBackends opens every page of routes.go as every role that may, against our
// service and against the public API: each answers 200. Against the public API the dashboard
// asks for no route the public API lacks (but the question of what it offers) and sends no
// parameter it would ignore.
func TestEveryPageOnBothBackends(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			user := h.fundedUser("Rita", "Routes", 50_00)
			// A flagged transfer's page is the one whose review the public API lacks.
			routes := routesWithObjects(t, h, user, h.flaggedPayout(user))
			filtered := filteredPages(user)

			for _, role := range dashstore.Roles {
				a, _ := h.signedIn(role)
				for _, rc := range routes {
					if rc.method != fiber.MethodGet || !web.Can(role, rc.perm) || rc.path == "/login" || rc.path == "/" ||
						rc.path == "/users/:id/payout-methods/routing-number" || strings.HasPrefix(rc.path, "/static") ||
						slices.Contains(downloadsOfGeneratedForms, rc.path) {
						continue
					}
					if res := a.get(rc.url); res.StatusCode != http.StatusOK {
						t.Errorf("GET %s as %s: status %d\n%.800s", rc.url, role, res.StatusCode, res.body)
					}
				}
				if b.public && role == dashstore.RoleOperations {
					// Without the service's stats, the overview still counts the failures the
					// dashboard records, and says what it does not count.
					wantBody(t, a.get("/overview"), `data-testid="failed-total">0 failed: 0 bulk rows refused, 0 approved payouts refused<`,
						"payouts that failed at the rail are not counted here")
				}
				for _, u := range filtered {
					rc := routeOf(t, routes, u)
					if !web.Can(role, rc.perm) {
						continue
					}
					if res := a.get(u); res.StatusCode != http.StatusOK {
						t.Errorf("GET %s as %s: status %d\n%.800s", u, role, res.StatusCode, res.body)
					}
				}
			}
			if b.public {
				if refused := slices.DeleteFunc(h.public.Refused(), func(r string) bool { return r == "GET /api/v2/extensions" }); len(refused) > 0 {
					t.Errorf("the dashboard asked the public API for routes it does not have: %v", refused)
				}
				if stripped := h.public.Stripped(); len(stripped) > 0 {
					t.Errorf("the dashboard sent the public API parameters it ignores: %v", stripped)
				}
			}
		})
	}
}

// filteredPages are pages with their filters set, and a search of each kind, besides the bare
// routes, about user.
func filteredPages(user *payouts.User) []string {
	return []string{"/users?q=" + strings.ToLower(user.FirstName) + "&status=unverified", "/users/suggest?user=" + strings.ToLower(user.FirstName[:3]),
		"/transfers?type=payout&status=flagged", "/transfers?user_id=" + user.ID + "&min=1.00", "/transactions?user_id=" + user.ID,
		"/transactions?min=13.13&max=13.13", "/payout-links?q=rita&status=sent", "/search?q=" + strings.ToLower(user.FirstName),
		"/search?q=13.13", "/search?q=" + user.ID, "/search?q=" + payouts.ShortID(user.ID), "/transfers/export?type=payout",
		"/transactions/export?user_id=" + user.ID}
}

// routeOf is the route a URL of the dashboard is served by.
func routeOf(t *testing.T, routes []routeCase, u string) routeCase {
	t.Helper()
	p, _, _ := strings.Cut(u, "?")
	for _, rc := range routes {
		if rc.method == fiber.MethodGet && rc.path == p {
			return rc
		}
	}
	t.Fatalf("no route serves %s", u)
	return routeCase{}
}

// TestFilteredViewsOnBothBackends checks, with two payees whose rows must not mix, that each
// filtered view shows only what its filter names, on our service and on the public API, where
// the dashboard filters itself and says so.
func TestFilteredViewsOnBothBackends(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			ctx := context.Background()
			ada, bob := h.fundedUser("Ada", "Lovelace", 40_00), h.fundedUser("Bob", "Babbage", 30_00)
			adaPayout, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 5_00, Platform: payouts.PlatformDefault})
			if err != nil {
				t.Fatal(err)
			}
			transfersOf := func(u *payouts.User) []payouts.Transfer {
				list, err := h.payouts.ListTransfers(ctx, payouts.Page{Limit: 100}, payouts.TransferFilter{UserID: u.ID})
				if err != nil {
					t.Fatal(err)
				}
				return list.Data
			}
			// The lines of transfers; with of, only those that touched that user's wallet (an app's
			// fee line of the user's payout did not).
			linesOf := func(ts []payouts.Transfer, of *payouts.User) (out []string) {
				for _, tr := range ts {
					for _, tx := range tr.Transactions {
						if of == nil || (tx.UserID != nil && *tx.UserID == of.ID) {
							out = append(out, `href="/transactions/`+strconv.FormatInt(tx.ID, 10)+`"`)
						}
					}
				}
				return out
			}
			transferPaths := func(ts ...payouts.Transfer) (out []string) {
				for _, tr := range ts {
					out = append(out, `href="/transfers/`+tr.ID+`"`)
				}
				return out
			}
			// The transfers that funded a user: Ada was given $40.00 and Bob $30.00.
			fundingOf := func(u *payouts.User) (out []payouts.Transfer) {
				for _, tr := range transfersOf(u) {
					if tr.Type == payouts.TransferBalance {
						out = append(out, tr)
					}
				}
				return out
			}
			adaFunding, bobFunding := fundingOf(ada), fundingOf(bob)
			adaFlow := h.createFlow(payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepCompliance}}, UserID: ada.ID})
			bobFlow := h.createFlow(payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepCompliance}}, UserID: bob.ID})
			adaLink := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 2_00, Payee: &payouts.Payee{FirstName: "Ada", Email: "ada.link@example.com"}})
			bobLink := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 3_00, Payee: &payouts.Payee{FirstName: "Bob", Email: "bob.link@example.com"}})
			adaRequest, bobRequest := h.payoutRequest(ada), h.payoutRequest(bob)
			if _, err := h.payouts.ReviewPayoutRequest(ctx, bobRequest.ID, payouts.ReviewPayoutRequestRequest{
				Action: payouts.ReviewReject, Reason: "not owed"}); err != nil {
				t.Fatal(err)
			}
			if _, err := h.payouts.CancelPayoutLink(ctx, bobLink.ID); err != nil {
				t.Fatal(err)
			}

			admin, _ := h.signedIn(dashstore.RoleAdmin)
			for _, tc := range []struct {
				name, url  string
				want, not  []string
				publicNote bool // the public API lacks the filter: the page filters itself and says so
				// extension: the page is only our service's; on the public API it shows the note
				// and neither payee's rows.
				extension bool
			}{
				// The public API filters transfers by user; its note is on the count and totals.
				{"a user's transfers", "/transfers?user_id=" + ada.ID, transferPaths(transfersOf(ada)...), transferPaths(transfersOf(bob)...), true, false},
				{"a user's transfers of a type", "/transfers?type=payout&user_id=" + ada.ID, transferPaths(*adaPayout),
					append(transferPaths(adaFunding...), transferPaths(transfersOf(bob)...)...), true, false},
				{"transactions by amount", "/transactions?min=40.00&max=40.00", linesOf(adaFunding, nil), linesOf(bobFunding, nil), true, false},
				{"payout links by status", "/payout-links?status=canceled", []string{`href="/payout-links/` + bobLink.ID + `"`},
					[]string{`href="/payout-links/` + adaLink.ID + `"`}, true, false},
				{"events of a user", "/events?user_id=" + ada.ID, []string{`href="/users/` + ada.ID + `"`},
					[]string{`href="/users/` + bob.ID + `"`}, true, true},
				{"a user's transactions", "/transactions?user_id=" + ada.ID, linesOf(transfersOf(ada), ada), linesOf(transfersOf(bob), nil), true, false},
				{"user search", "/users?q=" + url.QueryEscape("ada.lovelace"), []string{`href="/users/` + ada.ID + `"`},
					[]string{`href="/users/` + bob.ID + `"`}, true, false},
				{"user search, names in any order", "/users?q=" + url.QueryEscape("lovelace ada"), []string{`href="/users/` + ada.ID + `"`},
					[]string{`href="/users/` + bob.ID + `"`}, true, false},
				{"transfers by type", "/transfers?type=payout", transferPaths(*adaPayout), transferPaths(bobFunding...), true, false},
				{"flows by user, in search", "/search?q=" + url.QueryEscape(ada.Email), []string{`href="/flows/` + adaFlow.ID + `"`},
					[]string{`href="/flows/` + bobFlow.ID + `"`}, true, false},
				{"payout links search", "/payout-links?q=ada.link", []string{`href="/payout-links/` + adaLink.ID + `"`},
					[]string{`href="/payout-links/` + bobLink.ID + `"`}, true, false},
				{"payout requests by status", "/approvals", []string{"/payout-requests/" + adaRequest.ID},
					[]string{"/payout-requests/" + bobRequest.ID}, true, false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := admin.get(tc.url)
					wantStatus(t, res, http.StatusOK)
					if len(tc.want) == 0 {
						t.Fatal("the test names no row to find")
					}
					if b.public && tc.extension {
						tc.want, tc.not = nil, append(tc.not, tc.want...)
					}
					wantBody(t, res, tc.want...)
					for _, n := range tc.not {
						if strings.Contains(res.body, n) {
							t.Errorf("GET %s shows %s, which its filter leaves out", tc.url, n)
						}
					}
					if got, want := strings.Contains(res.body, apiNote), b.public && tc.publicNote; got != want {
						t.Errorf("GET %s: a note on what the API lacks: %v, want %v", tc.url, got, want)
					}
				})
			}
		})
	}
}

// TestAppWalletOnBothBackends: the app wallet page shows the same balance on our service and
// behind the strict stand-in for the public API, which sends only metrics.wallet_balance; there
// the page says that available and reserved are not reported, rather than showing $0.00.
func TestAppWalletOnBothBackends(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			h.deposit(195_083_60)
			a, _ := h.signedIn(dashstore.RoleAdmin)
			res := a.get("/app")
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, `text-gray-900"><span class="tabular-nums">$195,083.60</span>`)
			if got := strings.Contains(res.body, "how much of it is available or reserved"); got != b.public {
				t.Errorf("the page says the wallet is partly known: %v, want %v", got, b.public)
			}
			if got := strings.Contains(res.body, "<dt>Available</dt>"); got == b.public {
				t.Errorf("the page shows what is available: %v, want %v", got, !b.public)
			}
		})
	}
}

// TestUnknownFilterValues: a filter value in the address that is none of the form's choices is
// answered with a message, never dropped as if the list were filtered.
func TestUnknownFilterValues(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, _ := h.signedIn(dashstore.RoleAdmin)
	for _, tc := range []struct {
		url    string
		status int
		says   string
	}{
		{"/transfers?type=deposit", http.StatusUnprocessableEntity, "“deposit” is not a type this list knows"},
		{"/transfers?status=lost", http.StatusUnprocessableEntity, "“lost” is not a status this list knows"},
		{"/transactions?type=deposit", http.StatusUnprocessableEntity, "“deposit” is not a type this list knows"},
		{"/users?status=gone", http.StatusOK, "No status is called “gone”: every status is shown."},
		{"/payout-links?status=gone", http.StatusOK, "No status is called “gone”: every status is shown."},
	} {
		t.Run(tc.url, func(t *testing.T) {
			res := a.get(tc.url)
			wantStatus(t, res, tc.status)
			if !strings.Contains(html.UnescapeString(res.body), tc.says) {
				t.Errorf("GET %s does not say %q", tc.url, tc.says)
			}
		})
	}
}

// TestUserDefaultMethodOnBothBackends: a payee with a PayPal default is never shown as having
// none: our service names the default, and behind the strict stand-in for the public API, which
// does not say which saved method is the default, the page says so.
func TestUserDefaultMethodOnBothBackends(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			u := h.createUser("Pam", "Paypal")
			h.payPalDefault(u)
			a, _ := h.signedIn(dashstore.RoleSupport)
			res := a.get("/users/" + u.ID)
			wantStatus(t, res, http.StatusOK)
			if strings.Contains(res.body, "None yet") {
				t.Error("the page says the payee has no default method")
			}
			if got := strings.Contains(res.body, "without saying which is the default"); got != b.public {
				t.Errorf("the page says the default is not reported: %v, want %v", got, b.public)
			}
		})
	}
}
