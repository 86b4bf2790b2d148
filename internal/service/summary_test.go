package service_test

import (
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

// TestSummariesCountTheAppWalletOnce holds the transfer and transaction summaries to one
// definition of in and out, the app wallet's posted lines: money moved to a user and then paid
// out counts once, a failed payout's voided fee counts nowhere, and both summaries agree with
// the app's statement.
func TestSummariesCountTheAppWalletOnce(t *testing.T) {
	e := newEnv(t, 100000)
	start := e.clock.Now().Add(-time.Minute)
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ok@example.com"})
	// $50 to the user, then paid out of the user's wallet, the app paying the $0.25 fee.
	if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -5000}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 5000,
		Platform: payouts.PlatformPayPal, PayoutFeeParty: payouts.FeePartyPlatform}); err != nil {
		t.Fatal(err)
	}
	// A funded payout that fails: its $20 funding comes back and its fee is voided.
	bea := e.newUser(t, "bea@example.com", "4155550101")
	e.addMethod(t, bea.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "slowfail@example.com"})
	if _, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: bea.ID, Amount: 2000,
		Platform: payouts.PlatformPayPal, Fund: true, PayoutFeeParty: payouts.FeePartyPlatform}); err != nil {
		t.Fatal(err)
	}
	e.settle(t, time.Minute)

	// In: the deposit and the failed payout's funding back. Out: $50 to the user, its fee, the
	// failed payout's funding.
	want := payouts.Summary{MoneyIn: 100000 + 2000, MoneyOut: 5000 + 25 + 2000, Exact: true}
	transfers, err := e.svc.SummarizeTransfers(e.ctx, e.app, payouts.TransferFilter{})
	if err != nil {
		t.Fatal(err)
	}
	transactions, err := e.svc.SummarizeTransactions(e.ctx, e.app, payouts.TransactionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	statement, err := e.svc.Statement(e.ctx, e.app, payouts.StatementRequest{From: start, To: e.clock.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]payouts.Summary{"transfers": *transfers, "transactions": *transactions} {
		if got.MoneyIn != want.MoneyIn || got.MoneyOut != want.MoneyOut || !got.Exact {
			t.Errorf("%s summary: in %v, out %v; want in %v, out %v", name, got.MoneyIn, got.MoneyOut, want.MoneyIn, want.MoneyOut)
		}
	}
	// Each summary's breakdown by type adds up to it; the transfers' is by transfer type.
	for name, got := range map[string]payouts.Summary{"transfers": *transfers, "transactions": *transactions} {
		var sum payouts.TypeTotal
		for _, part := range got.ByType {
			sum.Count, sum.MoneyIn, sum.MoneyOut = sum.Count+part.Count, sum.MoneyIn+part.MoneyIn, sum.MoneyOut+part.MoneyOut
		}
		if sum.Count != got.Count || sum.MoneyIn != got.MoneyIn || sum.MoneyOut != got.MoneyOut {
			t.Errorf("%s: the types add up to %+v, the summary is %+v", name, sum, got)
		}
	}
	wantTypes := []payouts.TypeTotal{{Type: "refill", Count: 1, MoneyIn: 100000}, {Type: "payout", Count: 2, MoneyIn: 2000, MoneyOut: 2025},
		{Type: "balance", Count: 1, MoneyOut: 5000}}
	if !slices.Equal(transfers.ByType, wantTypes) {
		t.Errorf("transfers by type %+v, want %+v", transfers.ByType, wantTypes)
	}
	if statement.MoneyIn != want.MoneyIn || statement.MoneyOut != want.MoneyOut {
		t.Errorf("statement: in %v, out %v; want in %v, out %v", statement.MoneyIn, statement.MoneyOut, want.MoneyIn, want.MoneyOut)
	}
}
