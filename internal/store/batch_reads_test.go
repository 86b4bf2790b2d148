package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

// TestUserReadKnowsWallet: in a write transaction the user's read, which joins the wallet, stands
// for the wallet's read: the wallet found next is the same account as the batch has it, its
// guard counts the transaction's debits, and a user with no wallet yet gets one made.
func TestUserReadKnowsWallet(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, _ := fundedWallet(t, st, 0)
		funded, bare := newUser(t, st, appID, 1, "a@example.com"), newUser(t, st, appID, 2, "b@example.com")
		wallet, err := st.EnsureAccount(ctx, appID, ledger.UserWallet, funded.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ApplyDeltas(ctx, []ledger.Delta{{Account: bank.ID, DebitsPosted: 100}, {Account: wallet.ID, CreditsPosted: 100}}); err != nil {
			t.Fatal(err)
		}
		debit := func(q service.Queries, account, amount int64) error {
			return q.ApplyDeltas(ctx, []ledger.Delta{{Account: bank.ID, CreditsPosted: amount}, {Account: account, DebitsPosted: amount, Guard: true}})
		}
		err = st.InTx(ctx, func(q service.Queries) error {
			for _, want := range []int64{100, 40} {
				u, err := q.GetUser(ctx, appID, funded.ID)
				if err != nil {
					return err
				}
				a, err := q.EnsureAccount(ctx, appID, ledger.UserWallet, funded.ID)
				if err != nil {
					return err
				}
				if int64(u.Wallet.Amount) != want || a.ID != wallet.ID || a.Balance() != want {
					t.Errorf("user's wallet %d, account %d holding %d; want account %d holding %d", u.Wallet.Amount, a.ID, a.Balance(), wallet.ID, want)
				}
				if err := debit(q, a.ID, 60); want == 40 && !errors.Is(err, service.ErrOverdraft) {
					t.Errorf("debit of 60 from 40: %v, want an overdraft", err)
				} else if want == 100 && err != nil {
					return err
				}
			}
			if _, err := q.GetUser(ctx, appID, bare.ID); err != nil {
				return err
			}
			a, err := q.EnsureAccount(ctx, appID, ledger.UserWallet, bare.ID)
			if err != nil || a.ID == wallet.ID || a.Ref != bare.ID {
				t.Errorf("new wallet %+v, %v; want a new account of user %s", a, err, bare.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if a, _ := st.FindAccount(ctx, appID, ledger.UserWallet, funded.ID); a.Balance() != 40 {
			t.Errorf("committed wallet holds %d, want 40", a.Balance())
		}
	})
}
