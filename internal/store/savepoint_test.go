package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

// TestSavepoints runs savepoints one after another and nested in one transaction: each failed
// one undoes its own writes alone, whatever came before or after it.
func TestSavepoints(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		claim := func(q service.Queries, key string) error {
			_, err := q.ClaimIdempotencyKey(ctx, &service.IdempotencyRecord{AppID: appID, Key: key, Operation: "transfer", Created: time.Now()})
			return err
		}
		// step claims key in a savepoint of its own and fails when fail says so.
		step := func(q service.Queries, key string, fail bool, nested func() error) error {
			return q.Savepoint(ctx, func() error {
				if err := claim(q, key); err != nil {
					return err
				}
				if nested != nil {
					if err := nested(); err != nil && !errors.Is(err, errChangedMind) {
						return err
					}
				}
				if fail {
					return errChangedMind
				}
				return nil
			})
		}
		err := st.InTx(ctx, func(q service.Queries) error {
			for _, s := range []struct {
				key    string
				fail   bool
				nested func() error
			}{
				{key: "a"},
				{key: "b", fail: true},
				{key: "c"},
				{key: "d", nested: func() error { return step(q, "d-inner", true, nil) }},
				{key: "e", fail: true, nested: func() error { return step(q, "e-inner", false, nil) }},
				{key: "f", fail: true},
			} {
				if err := step(q, s.key, s.fail, s.nested); err != nil && !errors.Is(err, errChangedMind) {
					return err
				}
			}
			return claim(q, "g")
		})
		if err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true, "d-inner": false,
			"e": false, "e-inner": false, "f": false, "g": true} {
			t.Run(key, func(t *testing.T) {
				var kept bool
				err := st.InTx(ctx, func(q service.Queries) error {
					prior, err := q.ClaimIdempotencyKey(ctx, &service.IdempotencyRecord{AppID: appID, Key: key, Operation: "transfer", Created: time.Now()})
					kept = prior != nil
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if kept != want {
					t.Errorf("key %s kept %v, want %v", key, kept, want)
				}
			})
		}
	})
}

// TestSavepointSentLate nests a savepoint that writes inside one that sends nothing itself, and
// fails the outer one: both were sent with the inner write, and the rollback undoes it.
func TestSavepointSentLate(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		claim := func(q service.Queries, key string) (bool, error) {
			prior, err := q.ClaimIdempotencyKey(ctx, &service.IdempotencyRecord{AppID: appID, Key: key, Operation: "transfer", Created: time.Now()})
			return prior != nil, err
		}
		for _, tc := range []struct {
			name      string
			failOuter bool
			kept      bool
		}{
			{name: "outer fails", failOuter: true, kept: false},
			{name: "outer holds", failOuter: false, kept: true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				key := "late-" + tc.name
				err := st.InTx(ctx, func(q service.Queries) error {
					err := q.Savepoint(ctx, func() error {
						if err := q.Savepoint(ctx, func() error { _, err := claim(q, key); return err }); err != nil {
							return err
						}
						if tc.failOuter {
							return errChangedMind
						}
						return nil
					})
					if err != nil && !errors.Is(err, errChangedMind) {
						return err
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				var kept bool
				if err := st.InTx(ctx, func(q service.Queries) (err error) { kept, err = claim(q, key); return err }); err != nil {
					t.Fatal(err)
				}
				if kept != tc.kept {
					t.Errorf("key kept %v, want %v", kept, tc.kept)
				}
			})
		}
	})
}
