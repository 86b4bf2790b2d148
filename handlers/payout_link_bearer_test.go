package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestBearerLinkURLsMasked: a payout link that names nobody is claimed by whoever opens it
// first, so its claim URL (and its flow's, where it is claimed) is shown whole only to the roles
// that may hold such links (admins and operations by default); support and managers see it
// masked on every page, list, search, export and fragment that holds it. A link that names its
// payee is shown whole to everyone who reads links.
func TestBearerLinkURLsMasked(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			h.deposit(100_00)
			bearer := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 12_34, Memo: "bearer"})
			named := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 5_00,
				Payee: &payouts.Payee{FirstName: "Nia", LastName: "Named", Email: "nia@example.com"}})
			secrets := []string{bearer.Link}
			if bearer.FlowID != nil {
				f, err := h.payouts.GetFlow(t.Context(), *bearer.FlowID)
				if err != nil {
					t.Fatal(err)
				}
				secrets = append(secrets, f.Link)
			}
			// Where the URL could show: the link's page, list, search (page and suggestions), its
			// flow's page, its events, the events page, the audit log, the exports, and the
			// cancel form's fragment.
			pages := []string{"/payout-links", "/payout-links?q=bearer", "/payout-links/" + bearer.ID,
				"/payout-links/" + bearer.ID + "/events", "/search?q=" + bearer.ID, "/search?q=12.34",
				"/events?object_id=" + bearer.ID, "/audit", "/audit/export", "/transfers/export", "/transactions/export"}
			if bearer.FlowID != nil {
				pages = append(pages, "/flows/"+*bearer.FlowID, "/flows/"+*bearer.FlowID+"/events")
			}
			for _, role := range dashstore.Roles {
				t.Run(string(role), func(t *testing.T) {
					a, _ := h.signedIn(role)
					holds := slices.Contains(testApprovals.BearerLinks, role)
					var answers []response
					for _, p := range pages {
						answers = append(answers, a.get(p), a.get(p, "HX-Request", "true"))
					}
					answers = append(answers, a.post("/payout-links/"+bearer.ID+"/cancel", url.Values{"reason": {""}}, "HX-Request", "true"))
					for _, res := range answers {
						for _, secret := range secrets {
							if !holds && strings.Contains(res.body, secret) {
								t.Errorf("%s sees the claim URL %s in %s %s", role, secret, res.Request.Method, res.Request.URL)
							}
						}
					}
					page := a.get("/payout-links/" + bearer.ID)
					wantStatus(t, page, http.StatusOK)
					if holds {
						wantBody(t, page, `href="`+bearer.Link+`"`, `data-copy="#payout-link-url"`)
					} else {
						// The tail shown is the link's id's, never the claim key's (the URL's query).
						path, key, _ := strings.Cut(bearer.Link, "?")
						wantBody(t, page, `data-testid="claim-url-masked"`, "/…"+path[len(path)-4:], "Whoever opens this link first can claim it")
						if key != "" && strings.Contains(page.body, "/…"+key[len(key)-4:]) {
							t.Errorf("%s sees the claim key's tail", role)
						}
						if strings.Contains(page.body, `data-copy="#payout-link-url"`) {
							t.Errorf("%s gets a copy button for a masked link", role)
						}
					}
					wantBody(t, a.get("/payout-links/"+named.ID), `href="`+named.Link+`"`)
				})
			}
		})
	}
}

// TestBearerLinkIssuedOnlyByItsRoles: a role the policy does not let hold links that name nobody
// may still issue links that name their payee, never one that names nobody; the roles it names
// may.
func TestBearerLinkIssuedOnlyByItsRoles(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.BearerLinks = []dashstore.Role{dashstore.RoleAdmin}
	}})
	h.deposit(100_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	for _, tc := range []struct {
		name   string
		as     *agent
		form   url.Values
		status int
	}{
		{"operations, to nobody", ops, url.Values{"amount": {"10"}}, http.StatusForbidden},
		{"operations, a name alone is nobody", ops, url.Values{"amount": {"10"}, "payee.first_name": {"Al"}}, http.StatusForbidden},
		{"operations, to an email", ops, url.Values{"amount": {"10"}, "payee.email": {"al@example.com"}}, http.StatusSeeOther},
		{"operations, to a phone", ops, url.Values{"amount": {"10"}, "payee.phone_number": {"4155550123"}}, http.StatusSeeOther},
		{"admin, to nobody", admin, url.Values{"amount": {"10"}}, http.StatusSeeOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("delivery.method", "link")
			res := tc.as.post("/payout-links", tc.form)
			wantStatus(t, res, tc.status)
			if tc.status == http.StatusForbidden {
				wantBody(t, res, "may not issue a payout link that names nobody", `value="10"`)
			}
		})
	}
	list, err := h.payouts.ListPayoutLinks(t.Context(), payouts.Page{Limit: 10}, payouts.PayoutLinkFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Data); n != 3 {
		t.Errorf("%d links issued, want 3 (two named by operations, one to nobody by the admin)", n)
	}
}

// TestPayoutLinkFormPreflight: the new payout link form names what the service would refuse of
// the link or of its payee's claim (a W-9 the claim's payout would need) and issues nothing,
// until the link collects the tax form; against the public API, which cannot check, the form
// says so and the real request decides.
func TestPayoutLinkFormPreflight(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			h.deposit(2_020_00) // $20.00 left once Olga is paid
			ops, _ := h.signedIn(dashstore.RoleOperations)
			owes := h.payee("Olga", "olga@pay.example", 2_000_00)
			form := ops.get("/payout-links/new")
			if got := strings.Contains(form.body, apiNote); got != b.public {
				t.Errorf("the form's note that it cannot check: %v, want %v", got, b.public)
			}
			for _, tc := range []struct {
				name  string
				form  url.Values
				want  []string // on payoutd; the public API issues every one
				issue bool
			}{
				{"a claim that owes a W-9", url.Values{"amount": {"10"}, "user_id": {owes.ID}}, []string{"collect their W-9"}, false},
				{"more than the app holds", url.Values{"amount": {"50"}, "payee.email": {"al@example.com"}},
					[]string{"Insufficient funds", `role="alert"`}, false},
				{"the same claim, its flow collecting the tax form", url.Values{"amount": {"10"}, "user_id": {owes.ID},
					"force_collect_compliance_information": {"true"}}, nil, true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					tc.form.Set("delivery.method", "link")
					tc.form.Set("idempotency_key", uuid.NewString())
					res := ops.post("/payout-links", tc.form)
					switch {
					case tc.issue || b.public && tc.name == "a claim that owes a W-9":
						wantStatus(t, res, http.StatusSeeOther)
					default:
						wantStatus(t, res, http.StatusUnprocessableEntity)
						wantBody(t, res, tc.want...)
					}
				})
			}
		})
	}
}
