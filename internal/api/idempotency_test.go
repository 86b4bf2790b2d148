package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestIdempotentTransfers sends 20 identical transfer requests with one idempotency key at once:
// exactly one transfer is made, and every request that got a 200 got that transfer. The same key
// with another body is a 409 with no effect; with the same body afterwards, the original transfer.
func TestIdempotentTransfers(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, _, user := startWithUser(t, 1_000_00, engine.opts()...)
			key := uuid.NewString()
			body := map[string]any{"user_id": user.ID, "amount": -12_34, "idempotency_key": key}

			reqs := make([]*http.Request, 20)
			for i := range reqs {
				reqs[i] = env.NewRequest(t, "POST", "/v2/transfers", body)
			}
			answers := concurrently(env, reqs)

			ids := map[string]bool{}
			for _, a := range answers {
				switch {
				case a.err != nil:
					t.Fatalf("request: %v", a.err)
				case a.status == http.StatusOK:
					var tr payouts.Transfer
					if err := json.Unmarshal(a.body, &tr); err != nil {
						t.Fatalf("200 body %s: %v", a.body, err)
					}
					ids[tr.ID] = true
				case a.status == http.StatusConflict:
					var e payouts.Error
					json.Unmarshal(a.body, &e)
					if e.Code != payouts.EResourceBusy {
						t.Errorf("409 %s, want resource-busy while the first request runs", a.body)
					}
				default:
					t.Errorf("answer %d %s, want 200 or 409 resource-busy", a.status, a.body)
				}
			}
			if len(ids) != 1 {
				t.Fatalf("the 200 answers name %d transfers, want exactly 1: %v", len(ids), ids)
			}
			var original string
			for id := range ids {
				original = id
			}

			listed := func() []payouts.Transfer {
				var l payouts.List[payouts.Transfer]
				env.Do(t, "GET", "/v2/transfers?user_id="+user.ID, nil).Decode(t, &l)
				return l.Data
			}
			if got := listed(); len(got) != 1 || got[0].ID != original {
				t.Fatalf("transfers to the user: %+v, want only %s", got, original)
			}
			if w := getUser(t, env, user.ID).Wallet; w.Amount != 12_34 {
				t.Fatalf("user holds %v after 20 identical requests, want $12.34 once", w.Amount)
			}

			other := map[string]any{"user_id": user.ID, "amount": -99_00, "idempotency_key": key}
			call{name: "same key, another body", method: "POST", path: "/v2/transfers", body: other,
				status: http.StatusConflict, code: payouts.EIdempotencyReused}.do(t, env)

			var replay payouts.Transfer
			call{method: "POST", path: "/v2/transfers", body: body, status: http.StatusOK}.do(t, env).Decode(t, &replay)
			if replay.ID != original || replay.Amount != -12_34 {
				t.Errorf("replay answered %+v, want the original transfer %s", replay, original)
			}

			if got := listed(); len(got) != 1 {
				t.Errorf("%d transfers to the user after the conflict and the replay, want 1", len(got))
			}
			if w := getUser(t, env, user.ID).Wallet; w.Amount != 12_34 {
				t.Errorf("user holds %v after the conflict and the replay, want $12.34", w.Amount)
			}

			// A key is the app's own: another app may use the same one.
			otherApp := env.CreateApp(t, "Other")
			deposit(t, env, otherApp, 10_00)
			theirUser := createUser(t, env, otherApp)
			var theirs payouts.Transfer
			call{method: "POST", path: "/v2/transfers", as: &otherApp, status: http.StatusOK,
				body: map[string]any{"user_id": theirUser.ID, "amount": -1_00, "idempotency_key": key}}.do(t, env).Decode(t, &theirs)
			if theirs.ID == original {
				t.Errorf("another app's request with the same key got this app's transfer")
			}
		})
	}
}

// TestIdempotentDeposit checks that a deposit replayed with its key adds money once.
func TestIdempotentDeposit(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	creds := env.Credentials()
	key := uuid.NewString()
	path := "/v2/apps/" + creds.AppID + "/deposit"
	var first, again payouts.Transfer
	call{method: "POST", path: path, body: map[string]any{"amount": 5_00, "idempotency_key": key}, status: 200}.do(t, env).Decode(t, &first)
	call{method: "POST", path: path, body: map[string]any{"amount": 5_00, "idempotency_key": key}, status: 200}.do(t, env).Decode(t, &again)
	if again.ID != first.ID {
		t.Errorf("replayed deposit made %s, want the original %s", again.ID, first.ID)
	}
	call{method: "POST", path: path, body: map[string]any{"amount": 6_00, "idempotency_key": key},
		status: http.StatusConflict, code: payouts.EIdempotencyReused}.do(t, env)
	if a := getApp(t, env, creds); a.Wallet.Amount != 5_00 {
		t.Errorf("app holds %v, want $5.00 once", a.Wallet.Amount)
	}
}
