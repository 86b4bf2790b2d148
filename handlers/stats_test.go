package handlers_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

func TestOverview(t *testing.T) {
	h := newHarness(t)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	support, _ := h.signedIn(dashstore.RoleSupport)
	wantRedirect(t, ops.get("/"), "/overview")
	wantRedirect(t, support.get("/"), "/users")

	empty := ops.get("/overview")
	wantStatus(t, empty, http.StatusOK)
	wantBody(t, empty, "Overview", `data-testid="wallet-available"`, "No payouts in this window.")

	ok := h.fundedUser("Olly", "Okay", 100_00)
	bad := h.fundedUser("Fail", "Always", 20_00) // the sandbox rejects a PayPal address containing "fail"
	h.flaggedPayout(ok)
	for _, p := range []struct {
		u     *payouts.User
		cents int64
	}{{ok, 20_00}, {ok, 5_00}, {bad, 7_00}} {
		if _, err := h.payouts.CreatePayout(t.Context(), payouts.CreatePayoutRequest{UserID: p.u.ID, Amount: p.cents,
			Platform: payouts.PlatformDefault}); err != nil {
			t.Fatal(err)
		}
	}
	h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 3_00}) // reserves app money
	stats, err := h.payouts.GetAppStats(t.Context(), h.env.AppID, 30)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Flagged != 1 || stats.Failed != 1 || stats.Today.PayoutCount == 0 || stats.Wallet.Reserved() == 0 {
		t.Fatalf("setup: stats %+v", stats)
	}

	page := ops.get("/overview")
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page,
		`data-testid="wallet-available"><span class="tabular-nums">`+stats.Wallet.WithdrawableAmount.String()+`<`,
		`data-testid="wallet-reserved"><span class="tabular-nums">`+stats.Wallet.Reserved().String()+`<`,
		`data-testid="today-payouts"><span class="tabular-nums">`+stats.Today.Payouts.String()+`<`,
		strconv.Itoa(stats.Today.PayoutCount)+" payouts",
		`href="/transfers?status=flagged"`, `href="/transfers?status=failed&amp;type=payout"`,
		`<svg viewBox="0 0 1000 240"`, `role="img"`, "Show as a table")
	bars := regexp.MustCompile(`<rect x="\d+" y="(\d+)" width="\d+" height="(\d+)"[^>]*data-date="([^"]+)"`).FindAllStringSubmatch(page.body, -1)
	if len(bars) != 30 {
		t.Fatalf("%d bars, want 30", len(bars))
	}
	// Only today has payouts, so its bar is the full height of the plot and the others are empty.
	today := bars[29]
	if today[3] != stats.Days[29].Date || today[2] != "200" || today[1] != "12" {
		t.Errorf("today's bar %v", today[1:])
	}
	for _, b := range bars[:29] {
		if b[2] != "0" {
			t.Errorf("bar of %s has height %s on a day without payouts", b[3], b[2])
		}
	}
	if !strings.Contains(page.body, stats.Today.Payouts.String()+" in "+strconv.Itoa(stats.Today.PayoutCount)+" payouts") {
		t.Error("today's bar has no title with its amount")
	}
	// The links lead to lists that hold what the counts say.
	if got := ids(ops.get("/transfers?status=flagged")); len(got) != stats.Flagged {
		t.Errorf("flagged list has %d rows, the overview says %d", len(got), stats.Flagged)
	}
	if got := ids(ops.get("/transfers?type=payout&status=failed")); len(got) != stats.Failed {
		t.Errorf("failed list has %d rows, the overview says %d", len(got), stats.Failed)
	}
}

func TestAuditLogFilters(t *testing.T) {
	h := newHarness(t)
	admin, adminOp := h.signedIn(dashstore.RoleAdmin)
	ops, opsOp := h.signedIn(dashstore.RoleOperations)
	ann, bob := h.createUser("Ann", "Audited"), h.createUser("Bob", "Audited")
	h.deposit(100_00)
	for _, u := range []*payouts.User{ann, bob} {
		ops.post("/users/"+u.ID+"/transfers", map[string][]string{"direction": {"to_user"}, "amount": {"1"}})
	}
	admin.post("/users/"+ann.ID+"/transfers", map[string][]string{"direction": {"to_user"}, "amount": {"2"}})
	admin.post("/app/deposits", map[string][]string{"amount": {"3"}})

	page := admin.get("/audit")
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `role="search"`, `name="operator"`, `value="`+opsOp.ID+`"`, `name="object_type"`, `value="payout_link"`,
		`name="object_id"`, `href="/audit?operator=`+adminOp.ID+`"`)

	count := func(res response) int { return strings.Count(res.body, `data-action="`) }
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"", 4},
		{"operator=" + opsOp.ID, 2},
		{"operator=" + adminOp.ID, 2},
		{"object_type=user", 3},
		{"object_type=app", 1},
		{"object_type=user&object_id=" + ann.ID, 2},
		{"operator=" + opsOp.ID + "&object_type=user&object_id=" + ann.ID, 1},
	} {
		res := admin.htmxGet("/audit?" + tc.query)
		wantStatus(t, res, http.StatusOK)
		if got := count(res); got != tc.want {
			t.Errorf("audit?%s: %d entries, want %d", tc.query, got, tc.want)
		}
	}
	wantBody(t, admin.get("/audit?object_type=flow"), "Nothing matches", "Show everything")
}
