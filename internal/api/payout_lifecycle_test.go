package api_test

import (
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestPayoutLifecycle follows payouts through the sandbox rails on a controlled clock, on both
// databases. After the request, before the rail's delay and after it, both wallets are checked
// to the cent and the ledger's invariants are checked.
func TestPayoutLifecycle(t *testing.T) {
	t.Parallel()
	const deposited = 1_000_00
	tests := []struct {
		name      string
		method    map[string]any
		userFunds int64          // moved from the app to the user before the payout
		body      map[string]any // the payout, without user_id (and account_id for ach)
		delay     time.Duration  // the rail's: 5s, or 20s for ach

		wantStatus  payouts.TransferStatus // right after the request, and until the delay
		wantPending balances
		wantFinal   payouts.TransferStatus
		wantEnd     balances
		wantLines   []string // of the final transfer
	}{
		{
			name: "success, the platform pays the fee", method: paypalBody, userFunds: 50_00,
			body: map[string]any{"amount": 50_00, "platform": "paypal"}, delay: 5 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{950_00, 949_75, 50_00, 0},
			wantFinal: payouts.TransferCompleted, wantEnd: balances{949_75, 949_75, 0, 0},
			wantLines: []string{"fee 25 posted", "payout 5000 posted"},
		},
		{
			name: "success, the user pays the fee", method: paypalBody, userFunds: 50_00,
			body: map[string]any{"amount": 50_00, "platform": "paypal", "payout_fee_party": "user"}, delay: 5 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{950_00, 950_00, 50_00, 0},
			wantFinal: payouts.TransferCompleted, wantEnd: balances{950_00, 950_00, 0, 0},
			wantLines: []string{"fee 25 posted", "payout 4975 posted"},
		},
		{
			name: "success, funded by the app", method: paypalBody,
			body: map[string]any{"amount": 50_00, "platform": "default", "fund": true}, delay: 5 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{950_00, 949_75, 50_00, 0},
			wantFinal: payouts.TransferCompleted, wantEnd: balances{949_75, 949_75, 0, 0},
			wantLines: []string{"balance 5000 posted", "fee 25 posted", "payout 5000 posted"},
		},
		{
			name: "failure with fund restores the app to the cent", method: slowFailPayPalBody,
			body: map[string]any{"amount": 50_00, "platform": "paypal", "fund": true}, delay: 5 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{950_00, 949_75, 50_00, 0},
			wantFinal: payouts.TransferFailed, wantEnd: balances{1_000_00, 1_000_00, 0, 0},
			wantLines: []string{"balance 5000 posted", "balance 5000 posted", "fee 25 voided", "payout 5000 voided"},
		},
		{
			name: "failure without fund restores the user's wallet", method: slowFailPayPalBody, userFunds: 70_00,
			body: map[string]any{"amount": 50_00, "platform": "paypal", "payout_fee_party": "user"}, delay: 5 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{930_00, 930_00, 70_00, 20_00},
			wantFinal: payouts.TransferFailed, wantEnd: balances{930_00, 930_00, 70_00, 70_00},
			wantLines: []string{"fee 25 voided", "payout 4975 voided"},
		},
		{
			name: "rejected by the rail at once", method: failingVenmoBody, userFunds: 50_00,
			body: map[string]any{"amount": 50_00, "platform": "venmo"}, delay: 5 * time.Second,
			wantStatus: payouts.TransferFailed, wantPending: balances{950_00, 950_00, 50_00, 50_00},
			wantFinal: payouts.TransferFailed, wantEnd: balances{950_00, 950_00, 50_00, 50_00},
			wantLines: []string{"fee 25 voided", "payout 5000 voided"},
		},
		{
			name: "ach settles later and is free", method: achBody("12345678"), userFunds: 30_00,
			body: map[string]any{"amount": 30_00, "platform": "ach"}, delay: 20 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{970_00, 970_00, 30_00, 0},
			wantFinal: payouts.TransferCompleted, wantEnd: balances{970_00, 970_00, 0, 0},
			wantLines: []string{"payout 3000 posted"},
		},
		{
			name: "ach account ending 9999 fails at settlement", method: achBody("12349999"),
			body: map[string]any{"amount": 30_00, "platform": "ach", "fund": true}, delay: 20 * time.Second,
			wantStatus: payouts.TransferPending, wantPending: balances{970_00, 970_00, 30_00, 0},
			wantFinal: payouts.TransferFailed, wantEnd: balances{1_000_00, 1_000_00, 0, 0},
			wantLines: []string{"balance 3000 posted", "balance 3000 posted", "payout 3000 voided"},
		},
		{
			name: "ach account ending 0000 is refused at once", method: achBody("12340000"), userFunds: 30_00,
			body: map[string]any{"amount": 30_00, "platform": "ach"}, delay: 20 * time.Second,
			wantStatus: payouts.TransferFailed, wantPending: balances{970_00, 970_00, 30_00, 30_00},
			wantFinal: payouts.TransferFailed, wantEnd: balances{970_00, 970_00, 30_00, 30_00},
			wantLines: []string{"payout 3000 voided"},
		},
	}
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					env, creds, user := startWithUser(t, deposited, engine.frozen()...)
					method := addMethod(t, env, creds, user.ID, tt.method)
					if tt.userFunds > 0 {
						transfer(t, env, creds, user.ID, -tt.userFunds)
					}
					body := patch(tt.body, map[string]any{"user_id": user.ID})
					if method.Platform == payouts.PlatformACH {
						body["account_id"] = method.ID
					}
					tr := createPayout(t, env, body)
					checkPayout(t, env, creds, user.ID, tr.ID, "right after the request", tt.wantStatus, tt.wantPending)
					if n := settle(t, env, tt.delay-time.Second); n != 0 {
						t.Errorf("a second before the rail's delay, %d payouts settled", n)
					}
					checkPayout(t, env, creds, user.ID, tr.ID, "before the rail's delay", tt.wantStatus, tt.wantPending)
					wantSettled := 0
					if tt.wantStatus == payouts.TransferPending {
						wantSettled = 1
					}
					if n := settle(t, env, time.Second); n != wantSettled {
						t.Errorf("at the rail's delay, %d payouts settled, want %d", n, wantSettled)
					}
					final := checkPayout(t, env, creds, user.ID, tr.ID, "after the rail's delay", tt.wantFinal, tt.wantEnd)
					if got := lines(final); !slices.Equal(got, tt.wantLines) {
						t.Errorf("final transactions %v, want %v", got, tt.wantLines)
					}
					if tt.wantFinal == payouts.TransferFailed && final.FailureReason == "" {
						t.Errorf("failed payout without a failure_reason: %+v", final)
					}
					if n := settle(t, env, time.Hour); n != 0 {
						t.Errorf("%d payouts settled again an hour later", n)
					}
					checkPayout(t, env, creds, user.ID, tr.ID, "an hour later", tt.wantFinal, tt.wantEnd)
				})
			}
		})
	}
}

// checkPayout reads a payout and both wallets after a step of its life: its status, the wallets
// to the cent, and the ledger's invariants.
func checkPayout(t *testing.T, env *servicetest.Env, creds payouts.Credentials, userID, id, step string,
	status payouts.TransferStatus, want balances) payouts.Transfer {
	t.Helper()
	tr := getTransfer(t, env, id)
	if tr.Status != status {
		t.Fatalf("%s: payout %s (%s), want %s", step, tr.Status, tr.FailureReason, status)
	}
	if got := balancesOf(t, env, creds, userID); got != want {
		t.Fatalf("%s: %v, want %v", step, got, want)
	}
	env.CheckLedger(t)
	return tr
}
