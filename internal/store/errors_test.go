package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestErrorsNameTheOperation checks that a failure says which operation failed and on what,
// while the service can still recognise the cause with errors.Is and errors.As.
func TestErrorsNameTheOperation(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		ada := newUser(t, st, appID, 1, "ada@example.com")
		bank, err := st.EnsureAccount(ctx, appID, ledger.External, "bank")
		if err != nil {
			t.Fatal(err)
		}
		wallet, err := st.EnsureAccount(ctx, appID, ledger.AppWallet, "")
		if err != nil {
			t.Fatal(err)
		}
		missing := "00000000-0000-4000-8000-999999999999"
		tests := []struct {
			name string
			call func() error
			says string
			is   error
			code string // of the *payouts.Error inside, if any
		}{
			{"unknown transfer", func() error { _, err := st.GetTransfer(ctx, appID, missing); return err },
				"get transfer " + missing + ": ", service.ErrNoRecord, ""},
			{"unknown user", func() error { _, err := st.GetUser(ctx, appID, missing); return err },
				"get user " + missing + ": ", service.ErrNoRecord, ""},
			{"unknown transaction", func() error { _, err := st.GetTransaction(ctx, appID, 424242); return err },
				"get transaction 424242: ", service.ErrNoRecord, ""},
			{"delete of a deleted user", func() error {
				if err := st.DeleteUser(ctx, appID, ada.ID, t0); err != nil {
					return err
				}
				return st.DeleteUser(ctx, appID, ada.ID, t0)
			}, "delete user " + ada.ID + ": ", service.ErrNoRecord, ""},
			{"overdraft", func() error {
				return st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, payment(appID, wallet.ID, bank.ID, 1), wallet.ID) })
			}, "apply a plan: ", service.ErrOverdraft, ""},
			{"taken email", func() error {
				u := *ada
				u.ID, u.Email = userID(2), "bob@example.com"
				if err := st.CreateUser(ctx, &u); err != nil {
					return err
				}
				u.ID = userID(3)
				return st.CreateUser(ctx, &u)
			}, "create user: ", nil, payouts.EEmailExists},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.call()
				if err == nil || !strings.HasPrefix(err.Error(), tt.says) {
					t.Fatalf("error = %v, want it to start with %q", err, tt.says)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
				}
				if got := payouts.ErrorCode(err); tt.code != "" && got != tt.code {
					t.Errorf("code = %s, want %s", got, tt.code)
				}
			})
		}
	})
}
