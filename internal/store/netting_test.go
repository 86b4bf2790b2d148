package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// fundedWallet makes an app whose wallet holds amount, deposited from its bank account.
func fundedWallet(t *testing.T, st *store.Store, amount int64) (appID string, bank, wallet *ledger.Account) {
	t.Helper()
	ctx := context.Background()
	appID = newApp(t, st, "acme")
	var err error
	if bank, err = st.EnsureAccount(ctx, appID, ledger.External, "bank"); err != nil {
		t.Fatal(err)
	}
	if wallet, err = st.EnsureAccount(ctx, appID, ledger.AppWallet, ""); err != nil {
		t.Fatal(err)
	}
	if amount == 0 {
		return appID, bank, wallet
	}
	if err := st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, payment(appID, bank.ID, wallet.ID, amount)) }); err != nil {
		t.Fatal(err)
	}
	return appID, bank, wallet
}

// raceDebits debits amount from the wallet to the bank in jobs concurrent write transactions,
// spread over the stores, and counts those that went through and those refused for want of
// funds; any other outcome fails t.
func raceDebits(t *testing.T, stores []*store.Store, bank, wallet *ledger.Account, jobs int, amount int64) (ok, refused int) {
	t.Helper()
	ctx := context.Background()
	errs := inParallel(jobs, func(i int) error {
		return stores[i%len(stores)].InTx(ctx, func(q service.Queries) error {
			return post(ctx, q, payment(wallet.AppID, wallet.ID, bank.ID, amount), wallet.ID)
		})
	})
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, service.ErrOverdraft):
			refused++
		default:
			t.Errorf("job %d: %v", i, err)
		}
	}
	return ok, refused
}

// inParallel runs jobs calls of run at once and returns their errors, by call.
func inParallel(jobs int, run func(i int) error) []error {
	errs := make([]error, jobs)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Go(func() { errs[i] = run(i) })
	}
	wg.Wait()
	return errs
}

var errChangedMind = errors.New("the job changed its mind")

// TestNettedDebits races write transactions that share commits for one guarded balance. Each
// debit is checked against the balance as the batch left it; a job that fails after its debit
// leaves no trace; exactly as many debits go through as the balance covers, and the account
// row, written once per batch, ends at zero. Every job reads the account as its batch has it
// and never sees it below zero.
func TestNettedDebits(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 100)
		const jobs = 60
		seen := make([]int64, jobs)
		errs := inParallel(jobs, func(i int) error {
			return st.InTx(ctx, func(q service.Queries) error {
				if err := post(ctx, q, payment(appID, wallet.ID, bank.ID, 5), wallet.ID); err != nil {
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

// TestNettedDebitsTwoProcesses races the debits of two stores, as two payoutd processes, on one
// PostgreSQL database: each store's batches read the wallet without locking it, so one batch's
// final guarded UPDATE can find the money spent by the other's commit; its jobs then run again
// alone. Exactly as many debits go through as the balance covers.
func TestNettedDebitsTwoProcesses(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	stores := make([]*store.Store, 2)
	for i := range stores {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores[i] = st
	}
	_, bank, wallet := fundedWallet(t, stores[0], 100)
	ok, refused := raceDebits(t, stores, bank, wallet, 60, 5)
	a, _ := stores[1].FindAccount(ctx, wallet.AppID, ledger.AppWallet, "")
	if ok != 20 || refused != 40 || a.Balance() != 0 {
		t.Fatalf("%d debits went through, %d refused, wallet %d; want 20, 40, 0", ok, refused, a.Balance())
	}
}

// TestLockedUserWaitsAlone: on PostgreSQL a job in a shared batch does not wait for a row lock
// held elsewhere (it could close a deadlock between batches); it fails at once and runs again
// alone, waiting. Jobs reading a user another transaction holds all succeed once it ends.
func TestLockedUserWaitsAlone(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		u := newUser(t, st, appID, 1, "ada@example.com")
		holder, err := st.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		if st.DB().Dialect == sqldb.Postgres {
			if _, err := holder.ExecContext(ctx, `SELECT id FROM users WHERE id = $1 FOR UPDATE`, u.ID); err != nil {
				t.Fatal(err)
			}
		}
		const jobs = 20
		errs := make([]error, jobs)
		var wg sync.WaitGroup
		for i := range jobs {
			wg.Go(func() {
				errs[i] = st.InTx(ctx, func(q service.Queries) error {
					_, err := q.GetUser(ctx, appID, u.ID)
					return err
				})
			})
		}
		if err := holder.Commit(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("job %d: %v", i, err)
			}
		}
	})
}
