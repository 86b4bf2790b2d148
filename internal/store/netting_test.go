package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

var errChangedMind = errors.New("the job changed its mind")

// TestNettedDebits races write transactions that share commits for one guarded balance. Each
// debit is checked against the balance as the batch left it; a job that fails after its debit
// leaves no trace; exactly as many debits go through as the balance covers, and the account
// row, written once per batch, ends at zero. Every job reads the account as its batch has it
// and never sees it below zero.
func TestNettedDebits(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		bank, _ := st.EnsureAccount(ctx, appID, ledger.External, "bank")
		wallet, _ := st.EnsureAccount(ctx, appID, ledger.AppWallet, "")
		if err := st.ApplyDeltas(ctx, []ledger.Delta{{Account: bank.ID, DebitsPosted: 100}, {Account: wallet.ID, CreditsPosted: 100}}); err != nil {
			t.Fatal(err)
		}
		const jobs = 60
		errs := make([]error, jobs)
		seen := make([]int64, jobs)
		var wg sync.WaitGroup
		for i := range jobs {
			wg.Go(func() {
				errs[i] = st.InTx(ctx, func(q service.Queries) error {
					if err := q.ApplyDeltas(ctx, []ledger.Delta{
						{Account: bank.ID, CreditsPosted: 5},
						{Account: wallet.ID, DebitsPosted: 5, Guard: true},
					}); err != nil {
						return err
					}
					a, err := q.FindAccount(ctx, appID, ledger.AppWallet, "")
					if err != nil {
						return err
					}
					seen[i] = a.Available()
					if i%3 == 0 {
						return errChangedMind
					}
					return nil
				})
			})
		}
		wg.Wait()
		ok, refused := 0, 0
		for i, err := range errs {
			switch {
			case i%3 == 0 && errors.Is(err, errChangedMind), i%3 == 0 && errors.Is(err, service.ErrOverdraft):
			case err == nil:
				ok++
				if seen[i] < 0 {
					t.Errorf("job %d saw the wallet at %d", i, seen[i])
				}
			case errors.Is(err, service.ErrOverdraft):
				refused++
			default:
				t.Errorf("job %d: %v", i, err)
			}
		}
		a, _ := st.FindAccount(ctx, appID, ledger.AppWallet, "")
		b, _ := st.FindAccount(ctx, appID, ledger.External, "bank")
		if ok != 20 || refused != 20 || a.Balance() != 0 || b.Balance() != 0 {
			t.Fatalf("%d debits went through, %d refused, wallet %d, bank %d; want 20, 20, 0, 0", ok, refused, a.Balance(), b.Balance())
		}
	})
}
