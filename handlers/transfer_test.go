package handlers_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

var rowIDs = regexp.MustCompile(`<tr data-id="([^"]+)"`)

func ids(res response) []string {
	var out []string
	for _, m := range rowIDs.FindAllStringSubmatch(res.body, -1) {
		out = append(out, m[1])
	}
	return out
}

// walkPages follows a list's Older links from first to the last page, then its Newer links back
// to the first, as htmx fragments when htmx is set, and returns the row ids of every page seen on
// the way out and on the way back (in the order they were seen).
func (a *agent) walkPages(first string, htmx bool) (out, back [][]string) {
	a.h.t.Helper()
	get := a.get
	if htmx {
		get = func(path string, _ ...string) response { return a.htmxGet(path) }
	}
	older := `href="([^"]*[?&]after=[^"]+)"`
	newer := `href="([^"]*[?&]before=[^"]+)"`
	res := get(first)
	for {
		wantStatus(a.h.t, res, http.StatusOK)
		out = append(out, ids(res))
		next := links(res, older)
		if len(next) == 0 {
			break
		}
		if len(out) > 1000 {
			a.h.t.Fatal("more than 1,000 pages: the Older link goes round in circles")
		}
		res = get(next[0])
	}
	back = append(back, out[len(out)-1])
	for {
		prev := links(res, newer)
		if len(prev) == 0 {
			break
		}
		res = get(prev[0])
		wantStatus(a.h.t, res, http.StatusOK)
		back = append(back, ids(res))
		if len(back) > len(out) {
			a.h.t.Fatal("more pages back than forward")
		}
	}
	return out, back
}

func flatten(pages [][]string) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p...)
	}
	return out
}

// wantPagesBackAndForth checks that pages walked forward hold want (newest first) in pages of
// size, and that walking back showed the same pages.
func wantPagesBackAndForth(t *testing.T, out, back [][]string, want []string, size int) {
	t.Helper()
	if got := flatten(out); !slices.Equal(got, want) {
		t.Fatalf("pages forward hold %d rows %v…, want %d rows %v…", len(got), head(got), len(want), head(want))
	}
	for i, p := range out {
		if len(p) != size && i != len(out)-1 {
			t.Errorf("page %d has %d rows, want %d", i+1, len(p), size)
		}
	}
	slices.Reverse(back)
	if len(back) != len(out) {
		t.Fatalf("walked %d pages back, %d forward", len(back), len(out))
	}
	for i := range out {
		if !slices.Equal(back[i], out[i]) {
			t.Errorf("page %d going back %v…, going forward %v…", i+1, head(back[i]), head(out[i]))
		}
	}
}

func head(s []string) []string { return s[:min(3, len(s))] }

// allIDs is what the service itself lists for a filter, newest first.
func (h *harness) transferIDs(f payouts.TransferFilter) []string {
	h.t.Helper()
	var out []string
	for t, err := range h.payouts.AllTransfers(context.Background(), f) {
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, t.ID)
	}
	return out
}

func TestTransfersListFiltersAndPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	ops, _ := h.signedIn(dashstore.RoleOperations)

	wantBody(t, manager.get("/transfers"), "No transfers yet")

	ann := h.fundedUser("Ann", "Filter", 50_00)
	bob := h.fundedUser("Bob", "Other", 20_00)
	for i := range 3 {
		if _, err := h.payouts.CreateTransfer(t.Context(), payouts.CreateTransferRequest{UserID: ann.ID, Amount: int64(100 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	for range 55 {
		h.deposit(1_00)
	}

	full := manager.get("/transfers")
	wantStatus(t, full, http.StatusOK)
	wantBody(t, full, "<!doctype html>", `role="search"`, `id="transfers-table"`, `name="user"`, `name="type"`, `name="status"`,
		`href="/transfers/export"`, "Older →")
	if n := len(ids(full)); n != 50 {
		t.Errorf("page 1 has %d rows, want 50", n)
	}
	if strings.Contains(ops.get("/transfers").body, "/transfers/export") {
		t.Error("operations, who may not export, sees the export link")
	}

	t.Run("pages forward and back", func(t *testing.T) {
		want := h.transferIDs(payouts.TransferFilter{})
		for _, htmx := range []bool{false, true} {
			out, back := manager.walkPages("/transfers", htmx)
			wantPagesBackAndForth(t, out, back, want, 50)
		}
	})

	t.Run("filters", func(t *testing.T) {
		for _, tc := range []struct {
			query  string
			filter payouts.TransferFilter
		}{
			{"user=" + ann.ID, payouts.TransferFilter{UserID: ann.ID}},
			{"user=" + bob.ID + "&type=balance", payouts.TransferFilter{UserID: bob.ID, Type: payouts.TransferBalance}},
			{"type=refill", payouts.TransferFilter{Type: payouts.TransferRefill}},
			{"type=balance&status=completed", payouts.TransferFilter{Type: payouts.TransferBalance, Status: payouts.TransferCompleted}},
			{"status=flagged", payouts.TransferFilter{Status: payouts.TransferFlagged}},
		} {
			want := h.transferIDs(tc.filter)
			out, back := manager.walkPages("/transfers?"+tc.query, true)
			wantPagesBackAndForth(t, out, back, want, 50)
			// The export link of the fragment carries exactly the filter.
			frag := manager.htmxGet("/transfers?" + tc.query)
			export := links(frag, `href="(/transfers/export[^"]*)"`)
			if len(export) != 1 {
				t.Fatalf("%s: export links %v", tc.query, export)
			}
			u, _ := url.Parse(export[0])
			if u.Query().Get("user_id") != tc.filter.UserID || u.Query().Get("type") != string(tc.filter.Type) ||
				u.Query().Get("status") != string(tc.filter.Status) {
				t.Errorf("%s: export link %s", tc.query, export[0])
			}
		}
		wantBody(t, manager.get("/transfers?status=flagged"), "No transfers match", "Show all transfers")
	})

	t.Run("a user that matches no one", func(t *testing.T) {
		res := manager.htmxGet("/transfers?user=nobody")
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, `id="transfers-table"`, "No user matches", `role="alert"`, `aria-invalid="true"`)
		wantStatus(t, manager.get("/transfers/export?user=nobody"), http.StatusBadRequest)
	})

	t.Run("a broken cursor", func(t *testing.T) {
		res := manager.get("/transfers?after=00000000-0000-4000-8000-000000000000")
		if res.StatusCode < 400 || res.StatusCode >= 500 {
			t.Errorf("status %d, want a 4xx", res.StatusCode)
		}
	})
}

func TestTransferDetailAndReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, op := h.signedIn(dashstore.RoleOperations)
	manager, _ := h.signedIn(dashstore.RoleManager)
	u := h.fundedUser("Fay", "Flagged", 100_00)
	rejected, released := h.flaggedPayout(u), h.flaggedPayout(u)

	page := ops.get("/transfers/" + rejected.ID)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, "Payout to PayPal", "$13.13", "Flagged", `id="status-timeline"`, `id="review"`,
		"Release payout", "Reject payout", `name="reason"`, "/users/"+u.ID)
	for _, tx := range rejected.Transactions {
		wantBody(t, page, `href="/transactions/`+strconv.FormatInt(tx.ID, 10)+`"`)
	}
	if m := manager.get("/transfers/" + rejected.ID); strings.Contains(m.body, `id="review"`) {
		t.Error("a manager, who may not move money, sees the review")
	}

	t.Run("reject needs a reason", func(t *testing.T) {
		res := ops.post("/transfers/"+rejected.ID+"/review", url.Values{"action": {"reject"}, "reason": {"  "}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Say why the transfer is rejected.", `id="field-reason-error"`)
		wantStatus(t, ops.post("/transfers/"+rejected.ID+"/review", url.Values{"action": {"approve"}}), http.StatusBadRequest)
	})
	t.Run("the service's reason length", func(t *testing.T) {
		res := ops.post("/transfers/"+rejected.ID+"/review", url.Values{"action": {"reject"}, "reason": {strings.Repeat("r", 501)}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "must be at most 500 characters", `id="field-reason-error"`)
	})

	// A reason that a spreadsheet would run as a formula, for the export test below.
	reason := "=HYPERLINK(\"http://evil.example\") payee asked"
	wantRedirect(t, ops.post("/transfers/"+rejected.ID+"/review", url.Values{"action": {"reject"}, "reason": {reason}}),
		"/transfers/"+rejected.ID)
	page = ops.get("/transfers/" + rejected.ID)
	wantBody(t, page, "Rejected the transfer of $13.13.", "Failed", "payee asked")
	if strings.Contains(page.body, `id="review"`) {
		t.Error("a rejected transfer still offers the review")
	}
	wantRedirect(t, ops.post("/transfers/"+released.ID+"/review", url.Values{"action": {"release"}}), "/transfers/"+released.ID)
	got, err := h.payouts.GetTransfer(t.Context(), released.ID)
	if err != nil || got.Status == payouts.TransferFlagged || got.Status == payouts.TransferFailed {
		t.Fatalf("released transfer: %+v, %v", got, err)
	}
	// The timeline shows each status the transfer took.
	timeline := ops.get("/transfers/" + rejected.ID).body
	timeline = timeline[strings.Index(timeline, `id="status-timeline"`):]
	timeline = timeline[:strings.Index(timeline, "</section>")]
	if !strings.Contains(timeline, "Flagged") || !strings.Contains(timeline, "Failed") {
		t.Errorf("timeline lacks a status:\n%s", timeline)
	}

	for _, tc := range []struct {
		id, action, detail string
	}{{rejected.ID, "transfer.reject", "rejected $13.13: " + reason}, {released.ID, "transfer.release", "released $13.13"}} {
		entries := h.auditActions("transfer", tc.id)
		if len(entries) != 1 || entries[0].Action != tc.action || entries[0].Detail != tc.detail || entries[0].OperatorID != op.ID {
			t.Errorf("audit of %s = %+v, want one %s %q", tc.id, entries, tc.action, tc.detail)
		}
	}

	t.Run("export", func(t *testing.T) {
		res := manager.get("/transfers/export?user=" + u.ID + "&type=payout")
		wantStatus(t, res, http.StatusOK)
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("Content-Type %q", ct)
		}
		if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=transfers-") {
			t.Errorf("Content-Disposition %q", cd)
		}
		rows := readCSV(t, res.body)
		col := csvColumns(t, rows[0])
		want := h.transferIDs(payouts.TransferFilter{UserID: u.ID, Type: payouts.TransferPayout})
		if len(rows)-1 != len(want) {
			t.Fatalf("%d rows, want %d", len(rows)-1, len(want))
		}
		for i, row := range rows[1:] {
			if row[col["id"]] != want[i] {
				t.Errorf("row %d is %s, want %s", i+1, row[col["id"]], want[i])
			}
			if _, err := time.Parse(time.RFC3339, row[col["created"]]); err != nil {
				t.Errorf("row %d created %q: %v", i+1, row[col["created"]], err)
			}
			if row[col["amount"]] != "13.13" || row[col["payout_method"]] != "PayPal" || row[col["type"]] != "Payout to PayPal" {
				t.Errorf("row %d amount and method: %v", i+1, row)
			}
			if row[col["id"]] == rejected.ID && row[col["failure_reason"]] != "'"+reason {
				t.Errorf("failure reason cell %q: want it quoted against formula injection", row[col["failure_reason"]])
			}
		}
	})
}

func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatalf("the export is not CSV: %v\n%.500s", err, body)
	}
	if len(rows) == 0 {
		t.Fatal("the export is empty: no header")
	}
	return rows
}
