package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// searchFixture is one of each kind of object to find, for Maria López.
type searchFixture struct {
	maria    *payouts.User
	transfer payouts.Transfer
	link     *payouts.PayoutLink
	flow     *payouts.Flow
}

func newSearchFixture(t *testing.T, h *harness) searchFixture {
	t.Helper()
	maria := h.fundedUser("Maria", "López", 40_00)
	ts, err := h.payouts.ListTransfers(context.Background(), payouts.Page{Limit: 1}, payouts.TransferFilter{UserID: maria.ID})
	if err != nil || len(ts.Data) != 1 {
		t.Fatalf("maria's transfer: %v %v", ts, err)
	}
	h.createUser("Other", "Person")
	h.deposit(25_00)
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 25_00,
		Payee: &payouts.Payee{FirstName: "Paula", LastName: "Payee", Email: "paula@example.com"}})
	flow := h.createFlow(payouts.CreateFlowRequest{UserID: maria.ID, Steps: []payouts.Step{{Name: payouts.StepCompliance}}})
	return searchFixture{maria: maria, transfer: ts.Data[0], link: link, flow: flow}
}

func searchFor(a *agent, q string) response {
	a.h.t.Helper()
	return a.get("/search?q=" + url.QueryEscape(q))
}

func TestSearchFindsEachKind(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := newSearchFixture(t, h)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	user := `href="/users/` + f.maria.ID + `"`
	for _, tc := range []struct {
		name, q string
		want    []string
		notWant []string
	}{
		{"user by name", "maria lóp", []string{`id="search-users"`, user, "(maria.lópez@example.com)"}, []string{"Other Person"}},
		{"user by email", "maria.lópez@example", []string{`id="search-users"`, user}, nil},
		{"user by phone", f.maria.PhoneNumber.PhoneNumber, []string{`id="search-users"`, user}, nil},
		{"user by id", f.maria.ID, []string{`id="search-users"`, user}, []string{`id="search-transfers"`}},
		{"a user's transfers and flows by name", "López", []string{`id="search-transfers"`,
			`href="/transfers/` + f.transfer.ID + `"`, `id="search-flows"`, `href="/flows/` + f.flow.ID + `"`}, nil},
		{"link by payee", "paula", []string{`id="search-links"`, `href="/payout-links/` + f.link.ID + `"`, "$25.00 for Paula Payee"}, nil},
		{"link by amount in dollars", "25", []string{`id="search-links"`, `href="/payout-links/` + f.link.ID + `"`}, nil},
		{"link by amount with a sign", "$25.00", []string{`href="/payout-links/` + f.link.ID + `"`}, nil},
		{"link by amount with cents", "25.00", []string{`href="/payout-links/` + f.link.ID + `"`}, nil},
		{"no link of another amount", "26", nil, []string{`href="/payout-links/` + f.link.ID + `"`}},
		{"transfer by amount", "$40.00", []string{`id="search-transfers"`, `href="/transfers/` + f.transfer.ID + `"`}, nil},
		{"no transfer of another amount", "39", nil, []string{`href="/transfers/` + f.transfer.ID + `"`}},
		{"link by id", f.link.ID, []string{`id="search-links"`, `href="/payout-links/` + f.link.ID + `"`}, nil},
		{"transfer by id", f.transfer.ID, []string{`id="search-transfers"`, `href="/transfers/` + f.transfer.ID + `"`, user}, nil},
		{"flow by id", f.flow.ID, []string{`id="search-flows"`, `href="/flows/` + f.flow.ID + `"`, user}, nil},
		{"user by short id", payouts.ShortID(f.maria.ID), []string{`id="search-users"`, user}, nil},
		{"transfer by short id", payouts.ShortID(f.transfer.ID), []string{`id="search-transfers"`, `href="/transfers/` + f.transfer.ID + `"`}, nil},
		{"link by short id", strings.ToUpper(payouts.ShortID(f.link.ID)), []string{`id="search-links"`, `href="/payout-links/` + f.link.ID + `"`}, nil},
		{"flow by short id", payouts.ShortID(f.flow.ID), []string{`id="search-flows"`, `href="/flows/` + f.flow.ID + `"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { wantSearch(t, admin, tc.q, tc.want, tc.notWant) })
	}
}

// TestSearchPastTheNewest finds a user's flow and a link of an amount behind more than a page of
// newer flows and links: the search asks the service for exactly those, not for the newest.
func TestSearchPastTheNewest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := newSearchFixture(t, h)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	other := h.createUser("Newer", "Flows")
	h.deposit(payouts.MaxLimit * 1_00)
	concurrently(t, payouts.MaxLimit, func(int) error {
		ctx := context.Background()
		if _, err := h.payouts.CreateFlow(ctx, payouts.CreateFlowRequest{UserID: other.ID, Steps: []payouts.Step{{Name: payouts.StepCompliance}}}); err != nil {
			return err
		}
		_, err := h.payouts.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 1_00,
			Payee: &payouts.Payee{FirstName: "Newer", LastName: "Link", Email: "newer@example.com"}})
		return err
	})
	wantSearch(t, admin, "López", []string{`href="/flows/` + f.flow.ID + `"`}, nil)
	wantSearch(t, admin, "25.00", []string{`href="/payout-links/` + f.link.ID + `"`}, []string{"Newer Link"})
	wantSearch(t, admin, "1.00", []string{"Newer Link"}, []string{`href="/payout-links/` + f.link.ID + `"`})
}

// wantSearch searches for q as a and fails t unless the results show every one of want and none
// of notWant.
func wantSearch(t *testing.T, a *agent, q string, want, notWant []string) {
	t.Helper()
	res := searchFor(a, q)
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, want...)
	for _, no := range notWant {
		if strings.Contains(res.body, no) {
			t.Errorf("search %q shows %q", q, no)
		}
	}
}

// Results hold only what the operator's role may read: support reads users and links, not
// transfers or flows; a manager reads all four.
func TestSearchShowsOnlyWhatTheRoleMayRead(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := newSearchFixture(t, h)
	support, _ := h.signedIn(dashstore.RoleSupport)
	manager, _ := h.signedIn(dashstore.RoleManager)
	for _, tc := range []struct {
		name    string
		a       *agent
		q       string
		want    []string
		notWant []string
	}{
		{"support finds users, not their transfers or flows", support, "López",
			[]string{`id="search-users"`}, []string{`id="search-transfers"`, `id="search-flows"`, f.transfer.ID}},
		{"support finds links", support, "paula", []string{`id="search-links"`}, nil},
		{"support finds no transfer by id", support, f.transfer.ID, []string{"Nothing matches"}, []string{`href="/transfers/`}},
		{"support finds no flow by id", support, f.flow.ID, []string{"Nothing matches"}, []string{`href="/flows/`}},
		{"support finds no transfer by short id", support, payouts.ShortID(f.transfer.ID), nil, []string{`href="/transfers/`}},
		{"manager finds transfers and flows", manager, "López", []string{`id="search-users"`, `id="search-transfers"`, `id="search-flows"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { wantSearch(t, tc.a, tc.q, tc.want, tc.notWant) })
	}
}

func TestSearchAnswersEveryQuery(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	for _, tc := range []struct {
		name   string
		q      string
		status int
		want   []string
	}{
		{"empty", "", http.StatusOK, []string{`role="search"`, "Press"}},
		{"blank", "   ", http.StatusOK, []string{"Press"}},
		{"too long", strings.Repeat("a", 101), http.StatusUnprocessableEntity, []string{`role="alert"`, "at most 100 characters"}},
		{"unknown id", "00000000-0000-4000-8000-000000000000", http.StatusOK, []string{"Nothing matches"}},
		{"nothing by that name", "nobody-at-all", http.StatusOK, []string{"Nothing matches"}},
		{"like wildcards", "%_", http.StatusOK, []string{"Nothing matches"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := searchFor(admin, tc.q)
			wantStatus(t, res, tc.status)
			wantBody(t, res, tc.want...)
		})
	}
}

// As the operator types in the header's field, htmx asks for the first few results alone.
func TestSearchSuggestions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := newSearchFixture(t, h)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	wantBody(t, admin.get("/users"), `id="global-search"`, `action="/search"`, `hx-target="#search-suggestions"`)
	res := admin.htmxGet("/search?q=maria")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, `href="/users/`+f.maria.ID+`"`, `href="/search?q=maria"`, "All results")
	if empty := admin.htmxGet("/search?q="); strings.TrimSpace(empty.body) != "" && strings.Contains(empty.body, "All results") {
		t.Errorf("an empty search suggests something:\n%s", empty.body)
	}
}
