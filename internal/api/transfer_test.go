package api_test

import (
	"net/http"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestCreateTransfer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env

	t.Run("app to user", func(t *testing.T) {
		resp := call{method: "POST", path: "/v2/transfers", status: 200,
			body: map[string]any{"user_id": w.user.ID, "amount": -25_00, "metadata": map[string]any{"ref": "a1"}, "unknown": 1}}.do(t, env)
		var tr payouts.Transfer
		resp.Decode(t, &tr)
		if tr.Type != payouts.TransferBalance || tr.Status != payouts.TransferCompleted || tr.Amount != -25_00 ||
			tr.UserID == nil || *tr.UserID != w.user.ID || len(tr.Transactions) == 0 || string(tr.Metadata) != `{"ref":"a1"}` {
			t.Errorf("transfer %+v", tr)
		}
		if u := getUser(t, env, w.user.ID); u.Wallet.Amount != 75_00 {
			t.Errorf("user wallet %v after +$25, want $75", u.Wallet.Amount)
		}
	})
	t.Run("user to app", func(t *testing.T) {
		transfer(t, env, w.app, w.user.ID, 5_00)
		if u := getUser(t, env, w.user.ID); u.Wallet.Amount != 70_00 {
			t.Errorf("user wallet %v after -$5, want $70", u.Wallet.Amount)
		}
	})

	path := "/v2/transfers"
	calls := badBodies("POST", path, `{"user_id": 12, "amount": 5}`, "user_id")
	calls = append(calls, amountBodies("POST", path, `{"user_id": "`+w.user.ID+`", "amount": %s}`)...)
	bad := func(name string, body any, status int, code, field string) call {
		return call{name: name, method: "POST", path: path, body: body, status: status, code: code, field: field}
	}
	calls = append(calls,
		bad("zero amount", map[string]any{"user_id": w.user.ID, "amount": 0}, 400, payouts.EInvalidInput, "amount"),
		bad("missing amount", map[string]any{"user_id": w.user.ID}, 400, payouts.EInvalidInput, "amount"),
		bad("missing user_id", map[string]any{"amount": -100}, 400, payouts.EInvalidInput, "user_id"),
		bad("malformed user_id", map[string]any{"user_id": "nope", "amount": -100}, 400, payouts.EInvalidInput, "user_id"),
		bad("unknown user", map[string]any{"user_id": unknownID, "amount": -100}, 404, payouts.ENotFound, ""),
		bad("another app's user", map[string]any{"user_id": w.otherUser.ID, "amount": -100}, 404, payouts.ENotFound, ""),
		bad("more than the user has", map[string]any{"user_id": w.user.ID, "amount": 1_000_00}, 422, payouts.EInsufficientFunds, ""),
		bad("more than the app has", map[string]any{"user_id": w.user.ID, "amount": -1_000_000_00}, 422, payouts.EInsufficientFunds, ""),
		bad("tax_exempt a string", `{"user_id": "`+w.user.ID+`", "amount": -1, "tax_exempt": "no"}`, 400, payouts.EInvalidInput, "tax_exempt"),
		bad("idempotency_key a number", `{"user_id": "`+w.user.ID+`", "amount": -1, "idempotency_key": 7}`, 400, payouts.EInvalidInput, "idempotency_key"),
	)
	runCalls(t, env, calls)

	// None of the refused requests moved money.
	if u := getUser(t, env, w.user.ID); u.Wallet.Amount != 70_00 {
		t.Errorf("user wallet %v after refused transfers, want $70", u.Wallet.Amount)
	}
	if a := getApp(t, env, w.app); a.Wallet.Amount != 100_000_00-70_00 {
		t.Errorf("app wallet %v after refused transfers, want %v", a.Wallet.Amount, payouts.Money(100_000_00-70_00))
	}
}

func TestListTransfers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	second := createUser(t, env, w.app)
	toSecond := transfer(t, env, w.app, second.ID, -1_00)

	list := func(t *testing.T, query string) payouts.List[payouts.Transfer] {
		t.Helper()
		var l payouts.List[payouts.Transfer]
		call{method: "GET", path: "/v2/transfers" + query, status: 200}.do(t, env).Decode(t, &l)
		return l
	}
	t.Run("all, newest first", func(t *testing.T) {
		l := list(t, "")
		// deposit, transfer to the first user, transfer to the second
		if len(l.Data) != 3 || l.Data[0].ID != toSecond.ID || l.Data[1].ID != w.transfer.ID || l.HasMore {
			t.Errorf("list %+v", l)
		}
	})
	t.Run("by user", func(t *testing.T) {
		if l := list(t, "?user_id="+second.ID); len(l.Data) != 1 || l.Data[0].ID != toSecond.ID {
			t.Errorf("user_id filter: %+v", l.Data)
		}
	})
	t.Run("by type", func(t *testing.T) {
		if l := list(t, "?type=refill"); len(l.Data) != 1 || l.Data[0].Type != payouts.TransferRefill {
			t.Errorf("type filter: %+v", l.Data)
		}
	})
	t.Run("by status", func(t *testing.T) {
		if l := list(t, "?status=pending"); len(l.Data) != 0 {
			t.Errorf("status=pending: %+v", l.Data)
		}
	})
	t.Run("another app's user filters to nothing", func(t *testing.T) {
		if l := list(t, "?user_id="+w.otherUser.ID); len(l.Data) != 0 {
			t.Errorf("user_id of another app listed %+v", l.Data)
		}
	})

	calls := pageCalls("/v2/transfers")
	calls = append(calls,
		call{name: "malformed user_id", method: "GET", path: "/v2/transfers?user_id=abc", status: 400, code: payouts.EInvalidInput, field: "user_id"},
		call{name: "unknown type", method: "GET", path: "/v2/transfers?type=gift", status: 400, code: payouts.EInvalidInput, field: "type"},
		call{name: "unknown status", method: "GET", path: "/v2/transfers?status=lost", status: 400, code: payouts.EInvalidInput, field: "status"},
		call{name: "another app's cursor", method: "GET", path: "/v2/transfers?starting_after=" + w.otherTransfer.ID, status: 400, code: payouts.EInvalidInput},
	)
	runCalls(t, env, calls)
}

func TestGetTransfer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	t.Run("success", func(t *testing.T) {
		var tr payouts.Transfer
		call{method: "GET", path: "/v2/transfers/" + w.transfer.ID, status: 200}.do(t, env).Decode(t, &tr)
		if tr.ID != w.transfer.ID || tr.Amount != -50_00 || len(tr.Transactions) == 0 {
			t.Errorf("transfer %+v", tr)
		}
	})
	runCalls(t, env, notFoundCalls("GET", func(id string) string { return "/v2/transfers/" + id }, nil, w.otherTransfer.ID))
	if resp := env.DoAs(t, w.other, "GET", "/v2/transfers/"+w.otherTransfer.ID, nil); resp.Status != http.StatusOK {
		t.Errorf("the other app reads its own transfer: %d", resp.Status)
	}
}
