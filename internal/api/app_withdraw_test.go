package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestAppWithdraw follows a withdrawal from the app's wallet to its ACH account through the rail:
// settled, refused at once, or failed when it would have settled. The ledger's invariants are
// checked after each (servicetest, at cleanup).
func TestAppWithdraw(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		account string // the sandbox rail reads its last four digits
		want    payouts.TransferStatus
		final   payouts.TransferStatus
		wallet  payouts.Money // the app's wallet in the end
	}{
		{"settles", "000123456789", payouts.TransferPending, payouts.TransferCompleted, 600_00},
		{"refused at once", "000123450000", payouts.TransferFailed, payouts.TransferFailed, 1000_00},
		{"fails at the rail", "000123459999", payouts.TransferPending, payouts.TransferFailed, 1000_00},
	}
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					env := servicetest.Start(t, engine.frozen()...)
					creds := env.Credentials()
					path := "/v2/apps/" + creds.AppID
					deposit(t, env, creds, 1000_00)
					call{method: "PUT", path: path + "/ach-account", status: 200, body: map[string]any{
						"account_number": tt.account, "routing_number": "011000015", "account_type": "checking"}}.do(t, env)
					var tr payouts.Transfer
					call{method: "POST", path: path + "/withdraw", status: http.StatusCreated,
						body: map[string]any{"amount": 400_00}}.do(t, env).Decode(t, &tr)
					if tr.Status != tt.want || tr.Type != payouts.TransferPayout || tr.UserID != nil || tr.Amount != 400_00 {
						t.Fatalf("withdrawal %+v, want %s", tr, tt.want)
					}
					if a := getApp(t, env, creds); tt.want == payouts.TransferPending && (a.Wallet.Amount != 1000_00 || a.Wallet.WithdrawableAmount != 600_00) {
						t.Errorf("wallet while pending %+v, want $1,000.00 with $600.00 withdrawable", a.Wallet)
					}
					settle(t, env, time.Hour)
					tr = getTransfer(t, env, tr.ID)
					a := getApp(t, env, creds)
					if tr.Status != tt.final || a.Wallet.Amount != tt.wallet || a.Wallet.WithdrawableAmount != tt.wallet {
						t.Errorf("after the rail: %s, wallet %+v; want %s and %v", tr.Status, a.Wallet, tt.final, tt.wallet)
					}
					if tt.final == payouts.TransferCompleted && a.Metrics.MoneyOut != "400.00" {
						t.Errorf("money_out %q, want 400.00", a.Metrics.MoneyOut)
					}
				})
			}
		})
	}
}

func TestAppWithdrawRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	path := "/v2/apps/" + w.app.AppID + "/withdraw"
	key := "44444444-4444-4444-8444-444444444444"
	calls := []call{
		{name: "no ACH account", method: "POST", path: path, body: map[string]any{"amount": 1_00}, status: 422, code: payouts.EUserInfoMissing},
		{name: "ACH account", method: "PUT", path: "/v2/apps/" + w.app.AppID + "/ach-account", status: 200,
			body: map[string]any{"account_number": "000123456789", "routing_number": "011000015", "account_type": "checking"}},
		{name: "more than the wallet holds", method: "POST", path: path, body: map[string]any{"amount": 100_000_00}, status: 422, code: payouts.EInsufficientFunds},
		{name: "zero", method: "POST", path: path, body: map[string]any{"amount": 0}, status: 400, code: payouts.EInvalidInput, field: "amount"},
		{name: "negative", method: "POST", path: path, body: map[string]any{"amount": -5}, status: 400, code: payouts.EInvalidInput, field: "amount"},
		{name: "key not a UUID", method: "POST", path: path, body: map[string]any{"amount": 5, "idempotency_key": "k"}, status: 400, code: payouts.EInvalidInput, field: "idempotency_key"},
		{name: "another app's", method: "POST", path: path, as: &w.other, body: map[string]any{"amount": 5}, status: 404, code: payouts.ENotFound},
		{name: "first with a key", method: "POST", path: path, body: map[string]any{"amount": 5_00, "idempotency_key": key}, status: 201},
		{name: "the key again", method: "POST", path: path, body: map[string]any{"amount": 5_00, "idempotency_key": key}, status: 201},
		{name: "the key for another amount", method: "POST", path: path, body: map[string]any{"amount": 6_00, "idempotency_key": key}, status: 409, code: payouts.EIdempotencyReused},
	}
	calls = append(calls, badBodies("POST", path, `{"amount": "5"}`, "amount")...)
	calls = append(calls, amountBodies("POST", path, `{"amount": %s}`)...)
	runCalls(t, env, calls)
	// Only the keyed withdrawal, once, left the wallet.
	if a := getApp(t, env, w.app); a.Wallet.WithdrawableAmount != 100_000_00-50_00-5_00 {
		t.Errorf("withdrawable %v after one $5.00 withdrawal", a.Wallet.WithdrawableAmount)
	}
}
