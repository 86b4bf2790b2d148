package api_test

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestGetApp(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	t.Run("success", func(t *testing.T) {
		var a payouts.App
		call{method: "GET", path: "/v2/apps/" + w.app.AppID, status: 200}.do(t, env).Decode(t, &a)
		// $100,000 deposited, $50 sent to the user
		if a.ID != w.app.AppID || a.Name != "Test app" || a.Wallet.Amount != 100_000_00-50_00 {
			t.Errorf("app %+v", a)
		}
	})
	runCalls(t, env, notFoundCalls("GET", func(id string) string { return "/v2/apps/" + id }, nil, w.other.AppID))
}

func TestDeposit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	path := "/v2/apps/" + w.app.AppID + "/deposit"

	t.Run("success", func(t *testing.T) {
		var tr payouts.Transfer
		call{method: "POST", path: path, body: map[string]any{"amount": 12_34, "metadata": "wire 7"}, status: 200}.do(t, env).Decode(t, &tr)
		if tr.Type != payouts.TransferRefill || tr.Amount != 12_34 || tr.Status != payouts.TransferCompleted || string(tr.Metadata) != `"wire 7"` {
			t.Errorf("deposit %+v", tr)
		}
	})

	calls := badBodies("POST", path, `{"amount": [5]}`, "amount")
	calls = append(calls, amountBodies("POST", path, `{"amount": %s}`)...)
	calls = append(calls,
		call{name: "zero amount", method: "POST", path: path, body: map[string]any{"amount": 0}, status: 400, code: payouts.EInvalidInput, field: "amount"},
		call{name: "negative amount", method: "POST", path: path, body: map[string]any{"amount": -5}, status: 400, code: payouts.EInvalidInput, field: "amount"},
		call{name: "missing amount", method: "POST", path: path, body: map[string]any{}, status: 400, code: payouts.EInvalidInput, field: "amount"},
		call{name: "metadata a number", method: "POST", path: path, body: map[string]any{"amount": 5, "metadata": 5}, status: 400, code: payouts.EInvalidInput, field: "metadata"},
	)
	calls = append(calls, notFoundCalls("POST", func(id string) string { return "/v2/apps/" + id + "/deposit" },
		map[string]any{"amount": 1_00}, w.other.AppID)...)
	runCalls(t, env, calls)

	if a := getApp(t, env, w.app); a.Wallet.Amount != 100_000_00-50_00+12_34 {
		t.Errorf("app wallet %v after one deposit and refused ones", a.Wallet.Amount)
	}
	if a := getApp(t, env, w.other); a.Wallet.Amount != 100_000_00-50_00 {
		t.Errorf("the other app's wallet changed: %v", a.Wallet.Amount)
	}
}
