package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// w9Of submits a W-9 for u, as setup.
func (h *harness) w9Of(u *payouts.User) {
	h.t.Helper()
	w9 := payouts.W9{EntityType: payouts.EntityIndividual, FirstName: u.FirstName, LastName: u.LastName, DateOfBirth: "1990-12-10",
		TIN: "123456789", Address: payouts.Address{Line1: "1 Main St", City: "Springfield", State: "IL", Country: "US", Postcode: "62701"}}
	if err := h.payouts.SubmitCompliance(context.Background(), u.ID, payouts.ComplianceRequest{W9: &w9}); err != nil {
		h.t.Fatal(err)
	}
}

// payee makes a user with a PayPal method at email (a "fail" in it makes the sandbox's rail
// refuse every payout), already paid paid this year.
func (h *harness) payee(first, email string, paid int64) *payouts.User {
	h.t.Helper()
	ctx := context.Background()
	u := h.createUser(first, "Payee")
	if _, err := h.payouts.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: email, IsDefault: true}); err != nil {
		h.t.Fatal(err)
	}
	h.pay(u, paid)
	return u
}

// pay moves cents from the app to u's wallet, which counts towards u's 1099 threshold.
func (h *harness) pay(u *payouts.User, cents int64) {
	h.t.Helper()
	if cents == 0 {
		return
	}
	if _, err := h.payouts.CreateTransfer(context.Background(), payouts.CreateTransferRequest{UserID: u.ID, Amount: -cents}); err != nil {
		h.t.Fatal(err)
	}
}

var bulkProblemRow = regexp.MustCompile(`(?s)<tr data-testid="bulk-problem">.*?</tr>`)

// notPaidRows reads the job page's table of rows not paid: one text per row.
func notPaidRows(body string) []string {
	rows := bulkProblemRow.FindAllString(body, -1)
	for i, r := range rows {
		rows[i] = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(r, " ")
	}
	return rows
}

// TestBulkPayoutPreflight replays the finding of a 50-row file whose preview passed rows that
// then failed for a missing W-9: the preview now names the 6 rows the service would refuse
// (payees already past the 1099 threshold, and one whom the file's own earlier rows take past
// it); rows that fail at the run are all listed with their reason, the job is not "Done", and a
// retry says first which rows it sends again and which still fail, and then why.
func TestBulkPayoutPreflight(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.deposit(20_000_00)
	const threshold = 2_000_00 // 2026's
	var owing []*payouts.User
	for _, name := range []string{"Ann", "Ben", "Cat", "Dan"} {
		owing = append(owing, h.payee(name, strings.ToLower(name)+"@pay.example", threshold))
	}
	crossing := h.payee("Eve", "eve@pay.example", threshold-10_00) // $1,990.00: two $5.00 rows reach the threshold
	gil := h.payee("Gil", "fail@pay.example", 0)                   // the rail refuses every payout to Gil
	hal := h.payee("Hal", "hal@pay.example", 0)                    // past the threshold after the preview, then gives a W-9
	ivy := h.payee("Ivy", "ivy@pay.example", 0)                    // past the threshold after the preview, and not fixed
	fine := h.payee("Flo", "flo@pay.example", 0)

	var file strings.Builder
	file.WriteString("user,amount,memo,method\n")
	row := func(u *payouts.User, memo string) { fmt.Fprintf(&file, "%s,5.00,%s,paypal\n", u.Email, memo) }
	for _, u := range owing {
		row(u, "owes a W-9") // rows 1-4
	}
	for i := range 4 {
		row(crossing, fmt.Sprint("crossing ", i)) // rows 5-8: 7 and 8 owe the W-9
	}
	row(gil, "rail") // 9
	row(hal, "hal")  // 10
	row(ivy, "ivy")  // 11
	for i := range 39 {
		row(fine, fmt.Sprint("fine ", i)) // 12-50
	}

	a, _ := h.signedIn(dashstore.RoleOperations)
	id := a.uploadBulk(file.String())
	page := a.get("/bulk/" + id)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `data-testid="bulk-rows">50<`, `data-testid="bulk-good">44<`, `data-testid="bulk-bad">6<`)
	preview := notPaidRows(page.body)
	if len(preview) != 6 {
		t.Fatalf("the preview lists %d rows not to pay, want the 6 owing a W-9: %q", len(preview), preview)
	}
	for i, want := range []string{" 1 ", " 2 ", " 3 ", " 4 ", " 7 ", " 8 "} {
		if !strings.Contains(preview[i], want) || !strings.Contains(preview[i], "collect their W-9") {
			t.Errorf("preview row %d = %q, want row%sowing a W-9", i, preview[i], want)
		}
	}

	// After the preview, Hal and Ivy are paid past the threshold elsewhere.
	h.pay(hal, threshold)
	h.pay(ivy, threshold)
	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	done := a.waitBulk(id)
	wantBody(t, done, "Finished with 3 failed", "3 failed", "6 skipped")
	if strings.Contains(done.body, "Done") {
		t.Error("a job with failed rows is called done")
	}
	h.settlePayouts()
	page = a.get("/bulk/" + id)
	wantBody(t, page, "41 paid", "0 sent", "3 failed", "6 skipped")
	notPaid := notPaidRows(page.body)
	if len(notPaid) != 9 {
		t.Fatalf("the job lists %d rows not paid, want 9 (6 skipped, 3 failed): %q", len(notPaid), notPaid)
	}
	for _, want := range []struct{ row, outcome, reason string }{
		{" 9 ", "Failed", "refuses payments"}, {" 10 ", "Failed", "Not sent: The user has been paid past the 1099 threshold"},
		{" 11 ", "Failed", "Not sent: The user has been paid past the 1099 threshold"},
	} {
		if !slicesContains(notPaid, want.row, want.outcome, want.reason) {
			t.Errorf("no row%s%s with %q in %q", want.row, want.outcome, want.reason, notPaid)
		}
	}
	if list := a.get("/bulk"); strings.Contains(list.body, ">Done<") {
		t.Error("the list of files calls the job done")
	}

	// Hal gives a W-9; the page says before retrying what the retry will do with each failed row:
	// Gil's payout was made and failed on the rail, so its row's request would only get that
	// payout back.
	h.w9Of(hal)
	page = a.get("/bulk/" + id)
	wantBody(t, page, "1 of 3 pass now and are sent again; 2 still fail and are not sent", "It failed on the rail after it was sent")
	plan := regexp.MustCompile(`(?s)<li data-testid="bulk-retry-row">(.*?)</li>`).FindAllStringSubmatch(page.body, -1)
	wantPlan := []string{"Row 9 (" + gil.Email + "):", "Row 10 (" + hal.Email + "):", "Row 11 (" + ivy.Email + "):"}
	if len(plan) != 3 {
		t.Fatalf("retry plan %q", plan)
	}
	for i, w := range wantPlan {
		still := i != 1
		if got := strings.Join(strings.Fields(plan[i][1]), " "); !strings.HasPrefix(got, w) || strings.Contains(got, "still fails") != still {
			t.Errorf("retry plan row %d = %q, want %q (still failing: %v)", i, got, w, still)
		}
	}

	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	wantBody(t, a.get("/bulk/"+id), "Retrying 3 failed rows: 1 pass the checks now and are sent again; 2 still fail and are not sent.")
	wantBody(t, a.waitBulk(id), "Finished with 2 failed")
	h.settlePayouts()
	wantBody(t, a.get("/bulk/"+id), "42 paid", "0 sent", "2 failed")
	notPaid = notPaidRows(a.get("/bulk/" + id).body)
	if len(notPaid) != 8 || !slicesContains(notPaid, " 9 ", "Failed", "refuses payments") ||
		!slicesContains(notPaid, " 11 ", "Failed", "Not sent: The user has been paid past the 1099 threshold") {
		t.Errorf("after the retry, rows not paid: %q", notPaid)
	}
	h.env.CheckLedger(t)
}

// slicesContains reports whether one of rows holds every part.
func slicesContains(rows []string, parts ...string) bool {
	for _, r := range rows {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(r, p)
		}
		if all {
			return true
		}
	}
	return false
}
