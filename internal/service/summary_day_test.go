package service_test

import (
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestClosedDaySummaryStaysPut: a day's money in and out is what the app wallet's lines posted
// that day moved, the statement's definition, in the transfers' and the transactions' summaries
// alike. A funded payout made late on one day that fails on the next gives its money back on the
// next: the first day's figures, read after, are what they were, and equal its statement.
func TestClosedDaySummaryStaysPut(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100000)
		day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		next := day.AddDate(0, 0, 1)
		bea := e.newUser(t, "bea@example.com", "4155550101")
		e.addMethod(t, bea.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "slowfail@example.com"})
		e.clock.Set(next.Add(-time.Minute))
		if _, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: bea.ID, Amount: 2000,
			Platform: payouts.PlatformPayPal, Fund: true}); err != nil {
			t.Fatal(err)
		}
		rng := payouts.Range{CreatedFrom: day, CreatedTo: next}
		figures := func() (transfers, transactions, statement [2]payouts.Money) {
			t.Helper()
			tr, err := e.svc.SummarizeTransfers(e.ctx, e.app, payouts.TransferFilter{Range: rng})
			if err != nil {
				t.Fatal(err)
			}
			tx, err := e.svc.SummarizeTransactions(e.ctx, e.app, payouts.TransactionFilter{Range: rng})
			if err != nil {
				t.Fatal(err)
			}
			st, err := e.svc.Statement(e.ctx, e.app, payouts.StatementRequest{From: day, To: next})
			if err != nil {
				t.Fatal(err)
			}
			return [2]payouts.Money{tr.MoneyIn, tr.MoneyOut}, [2]payouts.Money{tx.MoneyIn, tx.MoneyOut}, [2]payouts.Money{st.MoneyIn, st.MoneyOut}
		}
		tr0, tx0, st0 := figures()
		if tr0 != st0 || tx0 != st0 {
			t.Fatalf("the open day: transfers %v, transactions %v, statement %v; want all equal", tr0, tx0, st0)
		}
		if n := e.settle(t, 2*time.Minute); n == 0 { // past midnight: the payout fails, its funding comes back
			t.Fatal("nothing settled")
		}
		tr1, tx1, st1 := figures()
		if tr1 != tr0 || tx1 != tx0 || st1 != st0 {
			t.Errorf("the closed day moved: transfers %v -> %v, transactions %v -> %v, statement %v -> %v", tr0, tr1, tx0, tx1, st0, st1)
		}
	})
}
