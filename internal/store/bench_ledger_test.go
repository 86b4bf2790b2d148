package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

// benchLedger is a file-backed SQLite store (durable commits) with an app, its wallet and a user
// wallet, funded.
func benchLedger(b *testing.B) (st *store.Store, appID string, wallet, user int64) {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	appID = "00000000-0000-4000-8000-000000000001"
	if err := st.CreateApp(ctx, &service.AppRecord{ID: appID, Name: "bench", ClientID: "ck", Created: t0}); err != nil {
		b.Fatal(err)
	}
	bank, _ := st.EnsureAccount(ctx, appID, ledger.External, "bank")
	w, _ := st.EnsureAccount(ctx, appID, ledger.AppWallet, "")
	u, _ := st.EnsureAccount(ctx, appID, ledger.UserWallet, "user")
	if err := st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, payment(appID, bank.ID, w.ID, 1<<40)) }); err != nil {
		b.Fatal(err)
	}
	return st, appID, w.ID, u.ID
}

// BenchmarkPosting is the ledger part of a 1-cent transfer from the app to a user: both
// accounts read, the guarded deltas, the posting, in one durable write transaction. Serial pays
// one commit each; parallel lets the writer share commits and net the app wallet's deltas.
//
//	go test ./internal/store -run '^$' -bench Posting -benchtime 5000x
func BenchmarkPosting(b *testing.B) {
	st, appID, wallet, user := benchLedger(b)
	ctx := context.Background()
	post := func() error {
		return st.InTx(ctx, func(q service.Queries) error {
			if _, err := q.FindAccount(ctx, appID, ledger.AppWallet, ""); err != nil {
				return err
			}
			if _, err := q.FindAccount(ctx, appID, ledger.UserWallet, "user"); err != nil {
				return err
			}
			return post(ctx, q, payment(appID, wallet, user, 1), wallet)
		})
	}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if err := post(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel64", func(b *testing.B) {
		b.SetParallelism(32) // 64 goroutines on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := post(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkIdempotencyLookup claims keys among 100,000 remembered ones: a fresh key (the first
// request) and a key already taken (a replay, which reads the earlier request's record).
//
//	go test ./internal/store -run '^$' -bench IdempotencyLookup -benchtime 5000x
func BenchmarkIdempotencyLookup(b *testing.B) {
	st, appID, _, _ := benchLedger(b)
	ctx := context.Background()
	keys := make([]string, 100_000)
	err := st.InTx(ctx, func(q service.Queries) error {
		for i := range keys {
			keys[i] = uuid.NewString()
			if _, err := q.ClaimIdempotencyKey(ctx, &service.IdempotencyRecord{AppID: appID, Key: keys[i],
				Operation: "transfer", RequestHash: "h", Created: t0}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	claim := func(key string, wantPrior bool) {
		err := st.InTx(ctx, func(q service.Queries) error {
			prior, err := q.ClaimIdempotencyKey(ctx, &service.IdempotencyRecord{AppID: appID, Key: key,
				Operation: "transfer", RequestHash: "h", Created: t0})
			if err == nil && (prior != nil) != wantPrior {
				err = fmt.Errorf("claim of %s found a prior record: %v, want %v", key, prior != nil, wantPrior)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			claim(uuid.NewString(), false)
		}
	})
	b.Run("replay", func(b *testing.B) {
		i := 0
		for b.Loop() {
			claim(keys[i%len(keys)], true)
			i++
		}
	})
}
