package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testKey is the encryption key the tests give payoutd (PostgreSQL requires one).
var testKey = strings.Repeat("cd", 32)

// seeded opens the service on db, makes an app with a deposit and a transfer to a payee, and
// closes it again; it returns the app's id.
func seeded(t *testing.T, db string) string {
	t.Helper()
	ctx := context.Background()
	key, err := payoutd.ParseKey(testKey)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := payoutd.New(ctx, payoutd.Config{DB: db, EncryptionKey: key}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	creds, err := srv.CreateApp(ctx, "Checked")
	if err != nil {
		t.Fatal(err)
	}
	svc := srv.Service()
	if _, err := svc.Deposit(ctx, creds.AppID, creds.AppID, payouts.DepositRequest{Amount: 100_00}); err != nil {
		t.Fatal(err)
	}
	u, err := svc.CreateUser(ctx, creds.AppID, payouts.CreateUserRequest{FirstName: "Cy", LastName: "Check",
		Email: "cy@example.com", CountryCode: "1", PhoneNumber: "4155550142"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTransfer(ctx, creds.AppID, payouts.CreateTransferRequest{UserID: u.ID, Amount: -25_00}); err != nil {
		t.Fatal(err)
	}
	return creds.AppID
}

// corrupt changes one account's totals behind the ledger's back, as a bad manual fix would.
func corrupt(t *testing.T, db, appID string) {
	t.Helper()
	tamper(t, db, `UPDATE ledger_accounts SET credits_posted = credits_posted + 1 WHERE app_id = '`+appID+`' AND kind = 'app_wallet'`)
}

// payoutd check exits 0 on a sound database and 1, naming the broken invariant, on one whose
// totals were changed behind the ledger's back.
func TestRunCheck(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, db string) {
		appID := seeded(t, db)
		check := func() (string, error) {
			var out bytes.Buffer
			err := run(context.Background(), []string{"check", "--db", db}, env(map[string]string{"DISBURSE_ENCRYPTION_KEY": testKey}), &out)
			return out.String(), err
		}

		out, err := check()
		if err != nil {
			t.Fatalf("check of a sound database: %v\n%s", err, out)
		}
		if !strings.Contains(out, "ok: 1 ledgers checked") {
			t.Errorf("check says:\n%s", out)
		}

		corrupt(t, db, appID)
		out, err = check()
		if !errors.Is(err, errLedgerViolated) || cli.ExitCode(err) != 1 {
			t.Fatalf("check of a corrupted database: %v (exit %d), want a violation, exit 1\n%s", err, cli.ExitCode(err), out)
		}
		if !strings.Contains(out, "VIOLATION in the ledger of "+appID) {
			t.Errorf("check does not name the app:\n%s", out)
		}
	})
}

func TestRunCheckRefusesArguments(t *testing.T) {
	err := run(context.Background(), []string{"check", "extra"}, env(nil), io.Discard)
	if cli.ExitCode(err) != 2 {
		t.Fatalf("payoutd check extra: %v, want a usage error", err)
	}
}
