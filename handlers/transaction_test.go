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
	t.Parallel()
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
			if _, err := time.Parse(time.RFC3339, row[col["created"]]); err != nil {
				t.Errorf("row %d created %q", i+1, row[col["created"]])
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

// TestTransactionsByTypeAndStatus filters the ledger lines by type and by status, in the
// transfers page's words, on both backends: a fee line and a payout line never mix, nor a
// posted line and a voided one. The public API reports no line's status: there the status
// filter is not offered, says so, and is never claimed.
func TestTransactionsByTypeAndStatus(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			ctx := context.Background()
			// A funded payout the rail refuses: its fee line is voided; the funding lines are posted.
			bea := h.createUser("Bea", "Refused")
			if _, err := h.payouts.AddPayoutMethod(ctx, bea.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
				Email: "fail@example.com", IsDefault: true}); err != nil {
				t.Fatal(err)
			}
			h.deposit(100_00)
			if p, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: bea.ID, Amount: 20_00,
				Platform: payouts.PlatformPayPal, Fund: true, PayoutFeeParty: payouts.FeePartyPlatform}); err != nil || p.Status != payouts.TransferFailed {
				t.Fatalf("the refused payout: %+v, %v", p, err)
			}
			// The service's own lines, split by what each row of the table asks.
			linesWhere := func(match func(payouts.Transaction) bool) (in, out []string) {
				for tx, err := range h.payouts.AllTransactions(ctx, payouts.TransactionFilter{}) {
					if err != nil {
						t.Fatal(err)
					}
					link := `href="/transactions/` + strconv.FormatInt(tx.ID, 10) + `"`
					if match(tx) {
						in = append(in, link)
					} else {
						out = append(out, link)
					}
				}
				if len(in) == 0 || len(out) == 0 {
					t.Fatalf("setup: %d lines match and %d do not", len(in), len(out))
				}
				return in, out
			}
			fees, notFees := linesWhere(func(tx payouts.Transaction) bool { return tx.Type == payouts.TransactionFee })
			voided, notVoided := linesWhere(func(tx payouts.Transaction) bool { return tx.Status == payouts.TransactionVoided })

			manager, _ := h.signedIn(dashstore.RoleManager)
			for _, tc := range []struct {
				name, url string
				htmx      bool
				chosen    []string // the option the form shows chosen, in the transfers page's words
				want, not []string
				status    bool // a status filter, which only our service applies
			}{
				{"fees", "/transactions?type=fee", false, []string{`<option value="fee" selected`, ">Fee<"}, fees, notFees, false},
				{"fees, the fragment", "/transactions?type=fee", true, nil, fees, notFees, false},
				{"voided", "/transactions?status=voided", false, []string{`<option value="voided" selected`, ">Voided<"}, voided, notVoided, true},
				{"voided, the fragment", "/transactions?status=voided", true, nil, voided, notVoided, true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := manager.get(tc.url)
					if tc.htmx {
						res = manager.htmxGet(tc.url)
					}
					wantStatus(t, res, http.StatusOK)
					if tc.htmx == strings.Contains(res.body, "<!doctype html>") {
						t.Errorf("GET %s (htmx %v): a whole page %v", tc.url, tc.htmx, !tc.htmx)
					}
					if b.public && tc.status {
						// Not applied, so every line shows, and the page says why, with no status select.
						wantBody(t, res, "Filtering transactions by status: not available", apiNote)
						wantBody(t, res, append(tc.want, tc.not...)...)
						if strings.Contains(res.body, `name="status"`) {
							t.Errorf("GET %s offers a status filter the API cannot apply", tc.url)
						}
						return
					}
					wantBody(t, res, append(tc.chosen, tc.want...)...)
					for _, n := range tc.not {
						if strings.Contains(res.body, n) {
							t.Errorf("GET %s shows %s, which its filter leaves out", tc.url, n)
						}
					}
				})
			}

			t.Run("export", func(t *testing.T) {
				rows := readCSV(t, manager.get("/transactions/export?type=fee").body)
				col := csvColumns(t, rows[0])
				if len(rows)-1 != len(fees) {
					t.Errorf("%d rows, want the %d fee lines", len(rows)-1, len(fees))
				}
				for i, row := range rows[1:] {
					if row[col["type"]] != "Fee" {
						t.Errorf("row %d: type %q, want Fee", i+1, row[col["type"]])
					}
				}
			})
		})
	}
}
