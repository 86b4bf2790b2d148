package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

// TestApplyDeltasAllOrNone: deltas of several accounts, which PostgreSQL writes in one
// statement, are applied all or none in a write transaction: one guarded delta that would
// overdraw, or one naming no account, refuses the lot. Outside one, two deltas of one account
// both count.
func TestApplyDeltasAllOrNone(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 100)
		fees, err := st.EnsureAccount(ctx, appID, ledger.Fees, "")
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name                 string
			inTx                 bool
			deltas               []ledger.Delta
			want                 error
			wantWallet, wantFees int64
		}{
			{"one overdraws", true, []ledger.Delta{{Account: bank.ID, CreditsPosted: 101}, {Account: wallet.ID, DebitsPosted: 101, Guard: true}}, service.ErrOverdraft, 100, 0},
			{"one names no account", true, []ledger.Delta{{Account: wallet.ID, DebitsPosted: 10, Guard: true}, {Account: 1 << 40, CreditsPosted: 10}}, service.ErrNoRecord, 100, 0},
			{"all within the balance", true, []ledger.Delta{{Account: wallet.ID, DebitsPosted: 30, Guard: true}, {Account: fees.ID, CreditsPosted: 30}}, nil, 70, 30},
			{"one account twice", false, []ledger.Delta{{Account: wallet.ID, DebitsPosted: 5, Guard: true}, {Account: fees.ID, CreditsPosted: 5}, {Account: wallet.ID, DebitsPosted: 5, Guard: true}, {Account: fees.ID, CreditsPosted: 5}}, nil, 60, 40},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				apply := func(q service.LedgerWrites) error { return q.ApplyDeltas(ctx, tc.deltas) }
				var err error
				if tc.inTx {
					err = st.InTx(ctx, func(q service.Queries) error { return apply(q) })
				} else {
					err = apply(st)
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("ApplyDeltas = %v, want %v", err, tc.want)
				}
				w, _ := st.FindAccount(ctx, appID, ledger.AppWallet, "")
				f, _ := st.FindAccount(ctx, appID, ledger.Fees, "")
				if w.Balance() != tc.wantWallet || f.Balance() != tc.wantFees {
					t.Fatalf("wallet %d, fees %d; want %d, %d", w.Balance(), f.Balance(), tc.wantWallet, tc.wantFees)
				}
			})
		}
	})
}
