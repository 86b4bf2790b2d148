package service_test

import (
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// newSubmittedPayout makes a payout its own request submits (the rail accepts it), funded or paid
// from a wallet the app filled first, and returns it with both wallets as they were before it.
func newSubmittedPayout(t *testing.T, e *env, fund bool) (tr *payouts.Transfer, app, user payouts.Wallet) {
	t.Helper()
	if !fund {
		if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -payoutAmount}); err != nil {
			t.Fatal(err)
		}
	}
	app, user = e.wallets(t, e.user.ID)
	tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: payoutAmount,
		Platform: payouts.PlatformPayPal, Fund: fund, TaxExempt: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != payouts.TransferPending || tr.ExternalData.ExternalID != "cr_"+tr.ID {
		t.Fatalf("new payout is %s with external id %q, want pending and submitted", tr.Status, tr.ExternalData.ExternalID)
	}
	return tr, app, user
}

// statusCount counts the times tr took status in its history.
func statusCount(tr *payouts.Transfer, status payouts.TransferStatus) int {
	n := 0
	for _, c := range tr.StatusHistory {
		if c.Status == status {
			n++
		}
	}
	return n
}

// TestRailReturnGivesMoneyBackOnce has a rail report that a payout's money came back, settled or
// not yet, by a notification (twice: a provider repeats itself) or to the worker's poll: the
// payout fails with the rail's reason, every wallet is as before the payout, and the repeat
// changes nothing.
func TestRailReturnGivesMoneyBackOnce(t *testing.T) {
	const reason = "PayPal returned the payout: UNCLAIMED"
	returned := service.RailOutcome{Returned: true, Reason: reason}
	tests := []struct {
		name    string
		fund    bool
		settled bool // the payout completed before its money came back
		byPoll  bool // the worker's poll hears of it, not a notification
	}{
		{"completed funded payout, notification", true, true, false},
		{"completed payout from the wallet, notification", false, true, false},
		{"pending payout, notification", false, false, false},
		{"pending funded payout, poll", true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, dsn string) {
				e, rail := newRailEnv(t, dsn)
				tr, appBefore, userBefore := newSubmittedPayout(t, e, tt.fund)
				if tt.settled {
					e.settle(t, settleDelay)
					if got := e.transfer(t, tr.ID); got.Status != payouts.TransferCompleted {
						t.Fatalf("payout is %s, want completed before its return", got.Status)
					}
				}
				report := func() {
					t.Helper()
					if tt.byPoll {
						rail.thenOutcomes(returned)
						e.settle(t, settleDelay)
						return
					}
					if err := e.svc.ReportRailOutcome(e.ctx, payouts.PlatformPayPal,
						service.RailReport{TransferID: tr.ID, ExternalID: "cr_" + tr.ID, Outcome: returned}); err != nil {
						t.Fatal(err)
					}
				}
				report()
				got := e.transfer(t, tr.ID)
				if got.Status != payouts.TransferFailed || got.FailureReason != reason {
					t.Fatalf("returned payout is %s (%q), want failed with the rail's reason", got.Status, got.FailureReason)
				}
				if n := statusCount(got, payouts.TransferCompleted); n != map[bool]int{true: 1}[tt.settled] {
					t.Errorf("history %+v completes %d times", got.StatusHistory, n)
				}
				lines := len(got.Transactions)

				report()
				again := e.transfer(t, tr.ID)
				if statusCount(again, payouts.TransferFailed) != 1 || len(again.Transactions) != lines {
					t.Errorf("a repeated return moved the payout again: history %+v, %d lines, want %d",
						again.StatusHistory, len(again.Transactions), lines)
				}
				e.checkLedger(t)
				app, user := e.wallets(t, e.user.ID)
				if app != appBefore || user != userBefore {
					t.Errorf("wallets after the return: app %+v, user %+v; want as before the payout: %+v, %+v",
						app, user, appBefore, userBefore)
				}
			})
		})
	}
}

// TestRailNotificationRacesPoll has a notification settle a payout while the worker's poll of it
// is at the rail: the poll's late answer (here a failure) is dropped, and the payout completes
// once.
func TestRailNotificationRacesPoll(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, rail := newRailEnv(t, dsn)
		tr := createPayout(t, e, rail, "")
		e.settle(t, pastRetry) // submitted by the worker

		gate := make(chan struct{})
		rail.holdOutcomes(gate)
		rail.thenOutcomes(service.RailOutcome{Failed: true, Reason: "late"})
		e.clock.Advance(settleDelay)
		polled := make(chan error, 1)
		go func() { _, err := e.svc.SettleDue(e.ctx, 10); polled <- err }()
		<-rail.entered
		if err := e.svc.ReportRailOutcome(e.ctx, payouts.PlatformPayPal,
			service.RailReport{TransferID: tr.ID, ExternalID: "cr_" + tr.ID, Outcome: service.RailOutcome{Settled: true}}); err != nil {
			t.Fatal(err)
		}
		close(gate)
		if err := <-polled; err != nil {
			t.Fatal(err)
		}
		checkPaidOnce(t, e, rail, []string{tr.ID})
	})
}

// TestRailNotificationIgnored sends notifications that must move nothing: of a payout on another
// platform, of no payout of ours, of another rail id, and with no news.
func TestRailNotificationIgnored(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, _ := newRailEnv(t, dsn)
		tr, _, _ := newSubmittedPayout(t, e, true)
		settled := service.RailOutcome{Settled: true}
		for _, tc := range []struct {
			name     string
			platform payouts.Platform
			report   service.RailReport
		}{
			{"another platform", payouts.PlatformVenmo, service.RailReport{TransferID: tr.ID, Outcome: settled}},
			{"not ours", payouts.PlatformPayPal, service.RailReport{TransferID: "0196c0de-0000-7000-8000-000000000000", Outcome: settled}},
			{"another rail id", payouts.PlatformPayPal, service.RailReport{TransferID: tr.ID, ExternalID: "cr_other", Outcome: settled}},
			{"no news", payouts.PlatformPayPal, service.RailReport{TransferID: tr.ID, ExternalID: "cr_" + tr.ID}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if err := e.svc.ReportRailOutcome(e.ctx, tc.platform, tc.report); err != nil {
					t.Fatal(err)
				}
				if got := e.transfer(t, tr.ID); got.Status != payouts.TransferPending {
					t.Errorf("payout is %s, want still pending", got.Status)
				}
			})
		}
	})
}
