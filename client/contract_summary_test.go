package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// TestContractFiltersAndSummaries narrows the transfer and transaction lists by creation time,
// amount and user, and checks that each summary counts and sums the rows its list shows, on both
// engines.
func TestContractFiltersAndSummaries(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		clock := testclock.New(day)
		env := servicetest.Start(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock))
		c := newClient(t, env.URL, env.ClientID, env.APIKey)
		deposit(t, env, c, 1_000_00) // day 0: in
		ada, bob := createUser(t, c, "Ada"), createUser(t, c, "Bob")
		move := func(user *payouts.User, amount int64) {
			t.Helper()
			if _, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: user.ID, Amount: amount}); err != nil {
				t.Fatal(err)
			}
		}
		clock.Set(day.Add(24 * time.Hour))
		move(ada, -10_00) // day 1: out
		clock.Set(day.Add(48 * time.Hour))
		move(ada, -25_00) // day 2: out
		move(bob, -7_00)  // day 2: out
		clock.Set(day.Add(72 * time.Hour))
		move(ada, 5_00) // day 3: in

		days12 := payouts.Range{CreatedFrom: day.Add(24 * time.Hour), CreatedTo: day.Add(72 * time.Hour)}
		amounts := payouts.Range{AmountMin: 10_00, AmountMax: 25_00}
		for _, tc := range []struct {
			name   string
			filter payouts.TransferFilter
			want   payouts.Summary
		}{
			{"everything", payouts.TransferFilter{}, payouts.Summary{Count: 5, MoneyIn: 1_005_00, MoneyOut: 42_00, Exact: true}},
			{"days 1 and 2", payouts.TransferFilter{Range: days12}, payouts.Summary{Count: 3, MoneyOut: 42_00, Exact: true}},
			{"Ada's days 1 and 2", payouts.TransferFilter{UserID: ada.ID, Range: days12}, payouts.Summary{Count: 2, MoneyOut: 35_00, Exact: true}},
			{"$10 to $25", payouts.TransferFilter{Range: amounts}, payouts.Summary{Count: 2, MoneyOut: 35_00, Exact: true}},
			{"from day 3", payouts.TransferFilter{Range: payouts.Range{CreatedFrom: day.Add(72 * time.Hour)}}, payouts.Summary{Count: 1, MoneyIn: 5_00, Exact: true}},
			{"refills", payouts.TransferFilter{Type: payouts.TransferRefill}, payouts.Summary{Count: 1, MoneyIn: 1_000_00, Exact: true}},
		} {
			t.Run("transfers "+tc.name, func(t *testing.T) {
				sum, err := c.SummarizeTransfers(ctx, tc.filter)
				if err != nil || !sameTotals(*sum, tc.want) {
					t.Errorf("SummarizeTransfers = %+v, %v; want %+v", sum, err, tc.want)
				}
				l, err := c.ListTransfers(ctx, payouts.Page{Limit: 100}, tc.filter)
				if err != nil || int64(len(l.Data)) != tc.want.Count {
					t.Fatalf("ListTransfers: %v; want %d rows", err, tc.want.Count)
				}
			})
		}
		for _, tc := range []struct {
			name   string
			filter payouts.TransactionFilter
			want   payouts.Summary
		}{
			{"days 1 and 2", payouts.TransactionFilter{Range: days12}, payouts.Summary{Count: 3, MoneyOut: 42_00, Exact: true}},
			{"Ada's $10 to $25", payouts.TransactionFilter{UserID: ada.ID, Range: amounts}, payouts.Summary{Count: 2, MoneyOut: 35_00, Exact: true}},
			{"from day 3", payouts.TransactionFilter{Range: payouts.Range{CreatedFrom: day.Add(72 * time.Hour)}}, payouts.Summary{Count: 1, MoneyIn: 5_00, Exact: true}},
		} {
			t.Run("transactions "+tc.name, func(t *testing.T) {
				sum, err := c.SummarizeTransactions(ctx, tc.filter)
				if err != nil || !sameTotals(*sum, tc.want) {
					t.Errorf("SummarizeTransactions = %+v, %v; want %+v", sum, err, tc.want)
				}
				l, err := c.ListTransactions(ctx, payouts.Page{Limit: 100}, tc.filter)
				if err != nil || int64(len(l.Data)) != tc.want.Count {
					t.Fatalf("ListTransactions: %v; want %d rows", err, tc.want.Count)
				}
			})
		}

		t.Run("bad ranges", func(t *testing.T) {
			_, err := c.SummarizeTransfers(ctx, payouts.TransferFilter{Range: payouts.Range{AmountMin: -1}})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, payouts.QueryAmountMin)
			_, err = c.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{Range: payouts.Range{AmountMin: 5, AmountMax: 4}})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, payouts.QueryAmountMax)
			_, err = c.SummarizeTransactions(ctx, payouts.TransactionFilter{Range: payouts.Range{CreatedFrom: day, CreatedTo: day}})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, payouts.QueryCreatedTo)
		})
	})
}

// sameTotals compares two summaries' totals, leaving their breakdowns by type aside.
func sameTotals(a, b payouts.Summary) bool {
	return a.Count == b.Count && a.MoneyIn == b.MoneyIn && a.MoneyOut == b.MoneyOut && a.Exact == b.Exact
}
