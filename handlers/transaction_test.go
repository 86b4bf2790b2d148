package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// transactionIDs is what the service itself lists for a filter, newest first.
func (h *harness) transactionIDs(f payouts.TransactionFilter) []string {
	h.t.Helper()
	var out []string
	for tx, err := range h.payouts.AllTransactions(context.Background(), f) {
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, strconv.FormatInt(tx.ID, 10))
	}
	return out
}

func TestTransactionsListDetailAndExport(t *testing.T) {
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	wantBody(t, manager.get("/transactions"), "No transactions yet")

	ann := h.fundedUser("Ann", "Lines", 200_00)
	h.fundedUser("Bob", "Others", 10_00)
	for i := range 60 {
		if _, err := h.payouts.CreateTransfer(t.Context(), payouts.CreateTransferRequest{UserID: ann.ID, Amount: int64(1 + i)}); err != nil {
			t.Fatal(err)
		}
	}

	full := manager.get("/transactions")
	wantStatus(t, full, http.StatusOK)
	wantBody(t, full, "<!doctype html>", `id="transactions-table"`, `name="user"`, `href="/transactions/export"`)

	want := h.transactionIDs(payouts.TransactionFilter{UserID: ann.ID})
	if len(want) < 61 {
		t.Fatalf("setup: %d transactions of the user", len(want))
	}
	for _, htmx := range []bool{false, true} {
		out, back := manager.walkPages("/transactions?user="+ann.ID, htmx)
		wantPagesBackAndForth(t, out, back, want, 50)
	}
	all := h.transactionIDs(payouts.TransactionFilter{})
	out, back := manager.walkPages("/transactions", true)
	wantPagesBackAndForth(t, out, back, all, 50)

	res := manager.htmxGet("/transactions?user=" + ann.ID)
	wantBody(t, res, `href="/transactions/export?user_id=`+ann.ID+`"`) // the id typed, chosen
	if strings.Contains(res.body, "<!doctype html>") {
		t.Error("the fragment is a whole page")
	}
	bad := manager.htmxGet("/transactions?user=not-an-id")
	wantStatus(t, bad, http.StatusUnprocessableEntity)
	wantBody(t, bad, `role="search"`, `id="filter-user-error"`, "No user matches")

	t.Run("detail", func(t *testing.T) {
		tx, err := h.payouts.GetTransaction(t.Context(), mustInt(t, want[0]))
		if err != nil {
			t.Fatal(err)
		}
		page := manager.get("/transactions/" + want[0])
		wantStatus(t, page, http.StatusOK)
		wantBody(t, page, "Transaction "+want[0], tx.Amount.String(), tx.SourceName, tx.DestinationName,
			`href="/transfers/`+tx.TransferID+`"`, `href="/users/`+ann.ID+`"`)
		wantStatus(t, manager.get("/transactions/999999"), http.StatusNotFound)
		wantStatus(t, manager.get("/transactions/abc"), http.StatusNotFound)
	})

	t.Run("export", func(t *testing.T) {
		res := manager.get("/transactions/export?user=" + ann.ID)
		wantStatus(t, res, http.StatusOK)
		rows := readCSV(t, res.body)
		col := csvColumns(t, rows[0])
		if len(rows)-1 != len(want) {
			t.Fatalf("%d rows, want %d", len(rows)-1, len(want))
		}
		for i, row := range rows[1:] {
			if row[col["id"]] != want[i] || row[col["user_id"]] != ann.ID || row[col["payee_name"]] != ann.FirstName+" "+ann.LastName {
				t.Errorf("row %d: %v, want transaction %s of the user", i+1, row, want[i])
			}
			if _, err := time.Parse(time.RFC3339, row[col["created_utc"]]); err != nil {
				t.Errorf("row %d created %q", i+1, row[col["created_utc"]])
			}
			if _, err := payouts.ParseDollars(row[col["amount"]]); err != nil {
				t.Errorf("row %d amount %q: %v", i+1, row[col["amount"]], err)
			}
		}
		entries := h.auditActions("transactions", "")
		if len(entries) != 1 || entries[0].Action != "transactions.export" || entries[0].Detail != "CSV of user_id="+ann.ID {
			t.Errorf("audit of the export: %+v", entries)
		}
	})
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
