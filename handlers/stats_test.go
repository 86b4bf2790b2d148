package handlers_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

func TestOverview(t *testing.T) {
	t.Parallel()
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
	// A bulk row the service refuses, with no transfer: its payee passes the 1099 threshold
	// after the preview and owes a W-9. Olly's row is paid, so the job can still be confirmed.
	wes := h.payee("Wes", "wes@pay.example", 0)
	job := ops.uploadBulk("user,amount,memo,method\n" + wes.Email + ",5.00,w9,paypal\n" + ok.Email + ",1.00,paid,paypal\n")
	h.deposit(2_000_00)
	h.pay(wes, 2_000_00)
	wantRedirect(t, ops.post("/bulk/"+job+"/confirm", nil), "/bulk/"+job)
	ops.waitBulk(job)
	stats, err := h.payouts.GetAppStats(t.Context(), h.env.AppID, 30, "")
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
		`<svg viewBox="0 0 1000 240"`, `role="img"`, "Show as a table",
		// Every failure is counted, with its breakdown, where each is listed and what is not a failure.
		`data-testid="failed-total">2 failed: 1 payout transfer, 1 bulk row refused, 0 approved payouts refused<`,
		`data-testid="failed-definition"`, "a payout link claim the service refused")
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
	t.Parallel()
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
		`name="action"`, `value="transfer.create"`, `name="user"`, `name="from"`, `name="to"`, `href="/audit?operator=`+adminOp.ID+`"`,
		// Times read absolute, in the operator's zone once the script runs, with the relative time beside them.
		`<time datetime="2026-03-02T09:00:00Z" data-local`, "2026-03-02 09:00", "just now",
		// Objects read by name, with their kind and short id as secondary text.
		`>Ann Audited</a>`, `>Bob Audited</a>`)
	if strings.Contains(page.body, `>user `+ann.ID[:8]) {
		t.Error("the object column names a user by id")
	}

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
		{"action=transfer.create", 3},
		{"action=app.deposit&operator=" + opsOp.ID, 0},
		{"user_id=" + ann.ID, 2},
		{"user=" + url.QueryEscape(ann.Email), 2},
		{"user_id=" + bob.ID + "&action=transfer.create", 1},
		{"from=2026-03-02&to=2026-03-02&tz=UTC", 4},
		{"to=2026-03-01&tz=UTC", 0},
		// 09:00 UTC is March 2nd, 23:00 at UTC+14 and in California the same day,
		{"from=2026-03-03&tz=Pacific/Kiritimati", 0},
		{"to=2026-03-02&tz=Pacific/Kiritimati", 4},
		// and still March 1st in Honolulu.
		{"from=2026-03-02&tz=Pacific/Honolulu", 0},
		{"to=2026-03-01&tz=Pacific/Honolulu", 4},
		{"from=2026-03-02&to=2026-03-02&tz=America/Los_Angeles", 4},
		// A filter that cannot be read lists nothing rather than everything.
		{"from=yesterday", 0},
		{"user=nobody", 0},
		{"user=ann", 2}, // the one user a name finds
	} {
		res := admin.htmxGet("/audit?" + tc.query)
		wantStatus(t, res, http.StatusOK)
		if got := count(res); got != tc.want {
			t.Errorf("audit?%s: %d entries, want %d", tc.query, got, tc.want)
		}
	}
	wantBody(t, admin.get("/audit?object_type=flow"), "Nothing matches", "Show everything")
	wantBody(t, admin.get("/audit?from=yesterday"), "a date like 2026-03-31")
	wantBody(t, admin.get("/audit?action=transfer.create&user_id="+ann.ID), `href="/audit/export?action=transfer.create&amp;user_id=`+ann.ID+`"`)
}

func TestAuditExport(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, adminOp := h.signedIn(dashstore.RoleAdmin)
	manager, managerOp := h.signedIn(dashstore.RoleManager)
	support, _ := h.signedIn(dashstore.RoleSupport)
	// A name a spreadsheet would run as a formula, to check the guard.
	ann, err := h.payouts.CreateUser(t.Context(), payouts.CreateUserRequest{FirstName: "=HYPERLINK(1)", LastName: "Audited",
		Email: "formula@example.com", CountryCode: "1", PhoneNumber: "4155550777"})
	if err != nil {
		t.Fatal(err)
	}
	h.deposit(100_00)
	for range 3 {
		admin.post("/users/"+ann.ID+"/transfers", map[string][]string{"direction": {"to_user"}, "amount": {"1"}})
	}
	admin.post("/app/deposits", map[string][]string{"amount": {"3"}})

	wantStatus(t, support.get("/audit/export"), http.StatusForbidden)
	wantStatus(t, manager.get("/audit/export?from=yesterday"), http.StatusBadRequest)

	res := manager.get("/audit/export?action=transfer.create")
	wantStatus(t, res, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %q", ct)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.body, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "created,operator_name,operator_email,action,action_label,object_type,object_id,object_name,detail,ip,time_zone" {
		t.Errorf("header %v", rows[0])
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want the header and 3 transfers: %v", len(rows), rows)
	}
	for _, row := range rows[1:] {
		want := []string{"2026-03-02T09:00:00Z", adminOp.Name, adminOp.Email, "transfer.create", "Moved money", "user", ann.ID,
			"'=HYPERLINK(1) Audited"}
		if strings.Join(row[:8], "|") != strings.Join(want, "|") {
			t.Errorf("row %v, want it to start %v", row, want)
		}
	}
	// The export is itself in the log, with who asked and for what.
	entries, _, err := h.store.AuditLog(t.Context(), dashstore.AuditFilter{Action: "audit.export", Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].OperatorID != managerOp.ID || !strings.Contains(entries[0].Detail, "action=transfer.create") {
		t.Fatalf("export's audit entries %+v, %v", entries, err)
	}
	wantBody(t, manager.get("/audit"), "Exported the audit log")
}

// TestAuditLogLinksOnlyWhatTheRoleOpens: a manager's audit log names operators without linking
// their pages, which only an admin opens; an admin's links them. Every other link opens.
func TestAuditLogLinksOnlyWhatTheRoleOpens(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	manager, _ := h.signedIn(dashstore.RoleManager)
	other, _ := h.addOperator("ops@example.com", dashstore.RoleOperations)
	u := h.createUser("Ada", "Audit")
	h.store.AddAudit(context.Background(), &dashstore.AuditEntry{Created: h.clock.Now(), OperatorID: other.ID,
		OperatorEmail: other.Email, Action: "user.create", ObjectType: "user", ObjectID: u.ID})
	h.store.AddAudit(context.Background(), &dashstore.AuditEntry{Created: h.clock.Now(), OperatorID: other.ID,
		OperatorEmail: other.Email, Action: "operator.create", ObjectType: "operator", ObjectID: other.ID})
	for role, a := range map[dashstore.Role]*agent{dashstore.RoleAdmin: admin, dashstore.RoleManager: manager} {
		t.Run(string(role), func(t *testing.T) {
			res := a.get("/audit")
			wantStatus(t, res, http.StatusOK)
			linked := strings.Contains(res.body, `href="/operators/`+other.ID+`"`)
			if linked != (role == dashstore.RoleAdmin) {
				t.Errorf("the log links the operator's page: %v", linked)
			}
			for _, m := range regexp.MustCompile(`<td[^>]*><a href="(/[a-z-]+/[0-9a-f-]{36})"`).FindAllStringSubmatch(res.body, -1) {
				if got := a.get(m[1]); got.StatusCode != http.StatusOK {
					t.Errorf("the log links %s, which answers %d", m[1], got.StatusCode)
				}
			}
		})
	}
}
