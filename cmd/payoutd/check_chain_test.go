package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// tamper runs statements on the database behind payoutd's back, as an insider with write access
// to it and not the key would.
func tamper(t *testing.T, db string, statements ...string) {
	t.Helper()
	ctx := context.Background()
	key, _ := payoutd.ParseKey(testKey)
	srv, err := payoutd.New(ctx, payoutd.Config{DB: db, EncryptionKey: key}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sqlDB := srv.Store().DB()
	err = sqlDB.InTx(ctx, func(tx *sql.Tx) error {
		for _, s := range statements {
			if _, err := tx.ExecContext(ctx, sqlDB.Rebind(s)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// payoutd check fails, naming what was done, on the two tamperings it passed before the ledger
// was chained: a balanced theft between two wallets, and a transfer's amount times 100.
func TestRunCheckFindsTampering(t *testing.T) {
	const (
		wallet = `(SELECT id FROM ledger_accounts WHERE kind = 'user_wallet')`
		app    = `(SELECT id FROM ledger_accounts WHERE kind = 'app_wallet')`
	)
	cases := []struct {
		name       string
		statements []string
		want       string
	}{
		{"a balanced theft", []string{
			`INSERT INTO postings (app_id, transfer_id, debit_account, credit_account, amount, state, type, source_name,
				destination_name, created, posted) SELECT app_id, 'theft', ` + app + `, ` + wallet + `, 5000, 'posted', 'balance',
				'Acme', 'Cy', 1, 1 FROM ledger_accounts WHERE kind = 'app_wallet'`,
			`UPDATE ledger_accounts SET debits_posted = debits_posted + 5000 WHERE kind = 'app_wallet'`,
			`UPDATE ledger_accounts SET credits_posted = credits_posted + 5000 WHERE kind = 'user_wallet'`,
		}, "is not in the chain"},
		{"a transfer's amount times 100", []string{
			`UPDATE transfers SET amount = amount * 100 WHERE type = 'balance'`,
		}, "its postings move $25.00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, db string) {
				appID := seeded(t, db)
				tamper(t, db, tc.statements...)
				var out bytes.Buffer
				err := run(context.Background(), []string{"check", "--db", db}, env(map[string]string{"DISBURSE_ENCRYPTION_KEY": testKey}), &out)
				if !errors.Is(err, errLedgerViolated) {
					t.Fatalf("check of a tampered database: %v, want a violation\n%s", err, &out)
				}
				if !strings.Contains(out.String(), "VIOLATION in the ledger of "+appID) || !strings.Contains(out.String(), tc.want) {
					t.Fatalf("check says\n%s\nwant the app and %q", &out, tc.want)
				}
			})
		})
	}
}
