package api_test

import (
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestSandboxFlagAmountHoldsOnlyInSandboxMode: the sandbox's test trigger (a payout of the flag
// amount is held for review) is a sandbox part. Outside sandbox mode a payout is held by the
// payee's compliance flag or the sanctions list, never by its amount.
func TestSandboxFlagAmountHoldsOnlyInSandboxMode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		production bool
		want       payouts.TransferStatus
	}{
		{"sandbox mode: held for review", false, payouts.TransferFlagged},
		{"production: paid as any other amount", true, payouts.TransferPending},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env, creds, user := startWithUser(t, 1_000_00,
				servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = tt.production }))
			addMethod(t, env, creds, user.ID, paypalBody)
			tr := createPayout(t, env, map[string]any{"user_id": user.ID, "amount": flagAmount, "platform": "paypal", "fund": true})
			if tr.Status != tt.want {
				t.Errorf("a payout of %d answered %s, want %s", flagAmount, tr.Status, tt.want)
			}
		})
	}
}
