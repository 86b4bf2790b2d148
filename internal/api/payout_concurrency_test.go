package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// answer is a response read off the test's goroutine.
type answer struct {
	status int
	body   []byte
	err    error
}

// concurrently sends the requests all at once and returns their answers in the same order.
func concurrently(env *servicetest.Env, reqs []*http.Request) []answer {
	answers := make([]answer, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := env.HTTP.Do(req)
			if err != nil {
				answers[i].err = err
				return
			}
			defer resp.Body.Close()
			answers[i].status = resp.StatusCode
			answers[i].body, answers[i].err = io.ReadAll(resp.Body)
		}()
	}
	close(start)
	wg.Wait()
	return answers
}

// startPayee starts the service frozen on engine with $1,000 in its app and one user who has a
// PayPal method and $50 of their own.
func startPayee(t *testing.T, engine engine) (*servicetest.Env, payouts.Credentials, payouts.User) {
	t.Helper()
	env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
	addMethod(t, env, creds, user.ID, paypalBody)
	transfer(t, env, creds, user.ID, -50_00)
	return env, creds, user
}

// TestIdempotentPayout replays payouts with their idempotency keys: the same body answers the
// original payout, whatever became of it, and reserves nothing more; another body is a 409.
func TestIdempotentPayout(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	addMethod(t, env, w.app, w.user.ID, paypalBody)
	venmo := addMethod(t, env, w.app, w.user.ID, failingVenmoBody)

	for _, tt := range []struct {
		name   string
		body   map[string]any
		status payouts.TransferStatus
	}{
		{"pending", map[string]any{"amount": 10_00, "platform": "paypal"}, payouts.TransferPending},
		{"refused by the rail", map[string]any{"amount": 10_00, "platform": "venmo", "account_id": venmo.ID}, payouts.TransferFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := patch(tt.body, map[string]any{"user_id": w.user.ID, "idempotency_key": uuid.NewString()})
			first := createPayout(t, env, body)
			if first.Status != tt.status {
				t.Fatalf("payout %s, want %s", first.Status, tt.status)
			}
			after := balancesOf(t, env, w.app, w.user.ID)
			replay := func(step string) {
				t.Helper()
				again := createPayout(t, env, body)
				if again.ID != first.ID || !slices.Equal(lines(again), lines(getTransfer(t, env, first.ID))) {
					t.Errorf("%s: replay answered %+v, want the payout %s", step, again, first.ID)
				}
				call{name: "same key, another body", method: "POST", path: "/v2/payouts", body: patch(body, map[string]any{"amount": 11_00}),
					status: http.StatusConflict, code: payouts.EIdempotencyReused}.do(t, env)
			}
			replay("right away")
			if got := balancesOf(t, env, w.app, w.user.ID); got != after {
				t.Errorf("after replays: %v, want %v", got, after)
			}
			settle(t, env, time.Minute)
			after = balancesOf(t, env, w.app, w.user.ID)
			replay("after settlement")
			if got := balancesOf(t, env, w.app, w.user.ID); got != after {
				t.Errorf("after replays: %v, want %v", got, after)
			}
		})
	}
	var list payouts.List[payouts.Transfer]
	env.Do(t, "GET", "/v2/transfers?type=payout", nil).Decode(t, &list)
	if len(list.Data) != 2 {
		t.Errorf("%d payouts after replays, want 2", len(list.Data))
	}
}

// TestConcurrentPayouts sends 20 payouts of $10 at once from a wallet holding $50, the user
// paying the fees: exactly five are accepted, the rest are refused for insufficient funds, and
// no wallet goes below zero, on both databases.
func TestConcurrentPayouts(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startPayee(t, engine)

			reqs := make([]*http.Request, 20)
			for i := range reqs {
				reqs[i] = env.NewRequest(t, "POST", "/v2/payouts",
					map[string]any{"user_id": user.ID, "amount": 10_00, "platform": "paypal", "payout_fee_party": "user"})
			}
			accepted := 0
			for _, a := range concurrently(env, reqs) {
				switch {
				case a.err != nil:
					t.Fatalf("payout: %v", a.err)
				case a.status == http.StatusCreated:
					accepted++
				case a.status == http.StatusUnprocessableEntity && strings.Contains(string(a.body), payouts.EInsufficientFunds):
				default:
					t.Errorf("payout answered %d %s, want 201 or 422 %s", a.status, a.body, payouts.EInsufficientFunds)
				}
			}
			if accepted != 5 {
				t.Errorf("%d payouts of $10 accepted from $50, want 5", accepted)
			}
			if got, want := balancesOf(t, env, creds, user.ID), (balances{950_00, 950_00, 50_00, 0}); got != want {
				t.Errorf("with the payouts pending: %v, want %v", got, want)
			}
			env.CheckLedger(t)
			if n := settle(t, env, time.Minute); n != accepted {
				t.Errorf("settled %d payouts, want %d", n, accepted)
			}
			if got, want := balancesOf(t, env, creds, user.ID), (balances{950_00, 950_00, 0, 0}); got != want {
				t.Errorf("after settlement: %v, want %v", got, want)
			}
		})
	}
}

// TestConcurrentIdempotentRequests sends 10 identical payouts, and 10 identical payout links,
// each group with one idempotency key, all at once, on both databases: each group makes exactly
// one object and reserves its money once; every other answer is that object or resource-busy.
func TestConcurrentIdempotentRequests(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startPayee(t, engine)

			payout := map[string]any{"user_id": user.ID, "amount": 10_00, "platform": "paypal", "idempotency_key": uuid.NewString()}
			link := map[string]any{"amount": 100_00, "idempotency_key": uuid.NewString()}
			var reqs []*http.Request
			for range 10 {
				reqs = append(reqs, env.NewRequest(t, "POST", "/v2/payouts", payout), env.NewRequest(t, "POST", "/v2/payout-links", link))
			}
			ids := map[string]map[string]bool{"/api/v2/payouts": {}, "/api/v2/payout-links": {}}
			for i, a := range concurrently(env, reqs) {
				path := reqs[i].URL.Path
				switch {
				case a.err != nil:
					t.Fatalf("%s: %v", path, a.err)
				case a.status == http.StatusOK || a.status == http.StatusCreated:
					var obj struct{ ID string }
					if err := json.Unmarshal(a.body, &obj); err != nil {
						t.Fatalf("%s answered %s: %v", path, a.body, err)
					}
					ids[path][obj.ID] = true
				case a.status == http.StatusConflict && strings.Contains(string(a.body), payouts.EResourceBusy):
				default:
					t.Errorf("%s answered %d %s, want the object or 409 %s", path, a.status, a.body, payouts.EResourceBusy)
				}
			}
			for path, made := range ids {
				if len(made) != 1 {
					t.Errorf("%s: the answers name %d objects, want 1", path, len(made))
				}
			}
			// One payout of $10 with its fee, and one link of $100, reserved.
			if got, want := balancesOf(t, env, creds, user.ID), (balances{950_00, 850_00 - 25, 50_00, 40_00}); got != want {
				t.Errorf("after the requests: %v, want %v", got, want)
			}
			env.CheckLedger(t)
		})
	}
}
