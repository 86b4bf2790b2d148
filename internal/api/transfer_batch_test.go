package api_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// runBatches makes the worker's pass over pending batches now.
func runBatches(t *testing.T, env *servicetest.Env) {
	t.Helper()
	if _, err := env.Service.ProcessBatches(context.Background(), 100); err != nil {
		t.Fatalf("process batches: %v", err)
	}
}

func TestTransferBatches(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			w := newWorld(t, engine.opts()...)
			env := w.env
			second := createUser(t, env, w.app)
			key := "11111111-1111-4111-8111-111111111111"
			items := []map[string]any{
				{"user_id": w.user.ID, "amount": -10_00, "idempotency_key": key},
				{"user_id": second.ID, "amount": -20_00, "metadata": map[string]any{"row": 2}},
				{"user_id": unknownID, "amount": -1_00},
				{"user_id": w.otherUser.ID, "amount": -1_00},
				{"user_id": w.user.ID, "amount": 5_00, "allow_debit": true},
				{"user_id": second.ID, "amount": 1_000_00, "allow_debit": true},
			}
			var b payouts.TransferBatch
			body := map[string]any{"items": items, "idempotency_key": "22222222-2222-4222-8222-222222222222"}
			call{method: "POST", path: "/v2/transfer-batches", body: body, status: http.StatusAccepted}.do(t, env).Decode(t, &b)
			if b.Status != payouts.BatchPending || len(b.Items) != len(items) || b.Items[0].TransferID != nil {
				t.Fatalf("new batch %+v", b)
			}
			runBatches(t, env)
			call{method: "GET", path: "/v2/transfer-batches/" + b.ID, status: 200}.do(t, env).Decode(t, &b)
			if b.Status != payouts.BatchCompleted {
				t.Fatalf("batch %+v after the worker", b)
			}
			for i, ok := range []bool{true, true, false, false, true, false} {
				it := b.Items[i]
				if (it.TransferID != nil) != ok || (it.Error != nil) == ok {
					t.Errorf("item %d: transfer %v, error %v; want success %v", i, it.TransferID, it.Error, ok)
				}
			}
			if u := getUser(t, env, w.user.ID); u.Wallet.Amount != 55_00 {
				t.Errorf("user wallet %v, want $55.00", u.Wallet.Amount)
			}
			if u := getUser(t, env, second.ID); u.Wallet.Amount != 20_00 {
				t.Errorf("second user wallet %v, want $20.00", u.Wallet.Amount)
			}

			t.Run("replays", func(t *testing.T) {
				var again payouts.TransferBatch
				call{method: "POST", path: "/v2/transfer-batches", body: body, status: http.StatusAccepted}.do(t, env).Decode(t, &again)
				if again.ID != b.ID {
					t.Errorf("same batch key made batch %s, want %s", again.ID, b.ID)
				}
				call{method: "POST", path: "/v2/transfer-batches", body: map[string]any{"items": items[:1]}, status: http.StatusAccepted}.do(t, env).Decode(t, &again)
				runBatches(t, env)
				call{method: "GET", path: "/v2/transfer-batches/" + again.ID, status: 200}.do(t, env).Decode(t, &again)
				if again.Items[0].TransferID == nil || *again.Items[0].TransferID != *b.Items[0].TransferID {
					t.Errorf("same item key made %v, want %v", again.Items[0].TransferID, *b.Items[0].TransferID)
				}
			})
			t.Run("list", func(t *testing.T) {
				var l payouts.List[payouts.TransferBatch]
				call{method: "GET", path: "/v2/transfer-batches?limit=1", status: 200}.do(t, env).Decode(t, &l)
				if len(l.Data) != 1 || !l.HasMore {
					t.Errorf("list %+v", l)
				}
				call{method: "GET", path: "/v2/transfer-batches", as: &w.other, status: 200}.do(t, env).Decode(t, &l)
				if len(l.Data) != 0 {
					t.Errorf("the other app sees %d batches", len(l.Data))
				}
			})

			path := "/v2/transfer-batches"
			many := make([]map[string]any, payouts.MaxBatchItems+1)
			for i := range many {
				many[i] = map[string]any{"user_id": w.user.ID, "amount": -1}
			}
			bad := func(name string, body any, field string) call {
				return call{name: name, method: "POST", path: path, body: body, status: 400, code: payouts.EInvalidInput, field: field}
			}
			calls := badBodies("POST", path, `{"items": {}}`, "items")
			calls = append(calls,
				bad("no items", map[string]any{"items": []any{}}, "items"),
				bad("1,001 items", map[string]any{"items": many}, "items"),
				bad("debit without allow_debit", map[string]any{"items": []any{map[string]any{"user_id": w.user.ID, "amount": 5}}}, "items[0].amount"),
				bad("malformed user", map[string]any{"items": []any{map[string]any{"user_id": "x", "amount": -5}}}, "items[0].user_id"),
				bad("zero amount", map[string]any{"items": []any{map[string]any{"user_id": w.user.ID}}}, "items[0].amount"),
				bad("item amount a string", `{"items": [{"user_id": "`+w.user.ID+`", "amount": "5"}]}`, "items.amount"),
				bad("repeated item key", map[string]any{"items": []any{map[string]any{"user_id": w.user.ID, "amount": -1, "idempotency_key": key},
					map[string]any{"user_id": w.user.ID, "amount": -1, "idempotency_key": key}}}, "items[1].idempotency_key"),
				call{name: "another app's batch", method: "GET", path: path + "/" + b.ID, as: &w.other, status: 404, code: payouts.ENotFound},
			)
			calls = append(calls, notFoundCalls("GET", func(id string) string { return path + "/" + id }, nil, unknownID)...)
			calls = append(calls, pageCalls(path)...)
			runCalls(t, env, calls)
		})
	}
}

// BenchmarkTransferBatch1000 measures a 1,000-item batch from POST to completed, on each engine.
func BenchmarkTransferBatch1000(b *testing.B) {
	for _, engine := range engines {
		b.Run(engine.name, func(b *testing.B) {
			opts := append(engine.opts(), servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 }))
			env := servicetest.Start(b, opts...)
			creds := env.Credentials()
			deposit(b, env, creds, 100_000_000_00)
			users := make([]payouts.User, 50)
			for i := range users {
				users[i] = createUser(b, env, creds)
			}
			items := make([]map[string]any, payouts.MaxBatchItems)
			for b.Loop() {
				for i := range items {
					items[i] = map[string]any{"user_id": users[i%len(users)].ID, "amount": -1_00, "idempotency_key": newKey()}
				}
				resp := env.DoAs(b, creds, "POST", "/v2/transfer-batches", map[string]any{"items": items})
				if resp.Status != http.StatusAccepted {
					b.Fatalf("batch: %d %s", resp.Status, resp.Body)
				}
				if _, err := env.Service.ProcessBatches(context.Background(), 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// keySeq makes idempotency keys unique across the package's parallel tests.
var keySeq atomic.Int64

func newKey() string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", keySeq.Add(1))
}
