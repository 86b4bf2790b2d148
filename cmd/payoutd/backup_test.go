package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
)

// payoutd backup, taken while transfers are being made, restores to a database that opens with
// its key file, whose ledgers hold every invariant, and that holds every transfer acknowledged
// before the backup began.
func TestRunBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, dest := filepath.Join(dir, "live.db"), filepath.Join(dir, "copy.db")
	srv, err := payoutd.New(ctx, payoutd.Config{DB: db}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	creds, err := srv.CreateApp(ctx, "Backed up")
	if err != nil {
		t.Fatal(err)
	}
	svc := srv.Service()
	if _, err := svc.Deposit(ctx, creds.AppID, creds.AppID, payouts.DepositRequest{Amount: 1_000_000_00}); err != nil {
		t.Fatal(err)
	}
	payee, err := svc.CreateUser(ctx, creds.AppID, payouts.CreateUserRequest{FirstName: "Bea", LastName: "Backup",
		Email: "bea@example.com", CountryCode: "1", PhoneNumber: "4155550143"})
	if err != nil {
		t.Fatal(err)
	}

	// Writers make transfers until told to stop; acked holds every one answered.
	var (
		mu      sync.Mutex
		acked   []string
		stop    = make(chan struct{})
		writers sync.WaitGroup
	)
	transfer := func() {
		tr, err := svc.CreateTransfer(ctx, creds.AppID, payouts.CreateTransferRequest{UserID: payee.ID, Amount: -1_00})
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		acked = append(acked, tr.ID)
		mu.Unlock()
	}
	for range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for {
				select {
				case <-stop:
					return
				default:
					transfer()
				}
			}
		}()
	}
	for range 50 { // some acknowledged before the backup, whatever the writers managed
		transfer()
	}
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	var out bytes.Buffer
	err = run(ctx, []string{"backup", dest, "--db", db}, env(nil), &out)
	for range 20 { // the writers have run during the backup, and do again after it
		transfer()
	}
	close(stop)
	writers.Wait()
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), payoutd.KeyFile(dest)) {
		t.Errorf("backup does not say where the key went:\n%s", out.String())
	}
	for _, f := range []string{dest, payoutd.KeyFile(dest)} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v, want 0600", f, err, fi.Mode().Perm())
		}
	}

	// Restore: the copy, moved into place with its key, opens as the service's database.
	restoredDB := filepath.Join(t.TempDir(), "restored.db")
	for from, to := range map[string]string{dest: restoredDB, payoutd.KeyFile(dest): payoutd.KeyFile(restoredDB)} {
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	var checked bytes.Buffer
	if err := run(ctx, []string{"check", "--db", restoredDB}, env(nil), &checked); err != nil {
		t.Fatalf("check of the restored copy: %v\n%s", err, checked.String())
	}
	restored, err := payoutd.New(ctx, payoutd.Config{DB: restoredDB}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	for _, id := range before {
		if _, err := restored.Service().GetTransfer(ctx, creds.AppID, id); err != nil {
			t.Errorf("transfer %s, acknowledged before the backup, is not in the copy: %v", id, err)
		}
	}
	u, err := restored.Service().GetUser(ctx, creds.AppID, payee.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Wallet.Amount; got < payouts.Money(len(before))*1_00 {
		t.Errorf("the payee's wallet in the copy holds %v, less than the %d transfers acknowledged before", got, len(before))
	}
}

// payoutd backup refuses PostgreSQL (pointing at pg_dump) without connecting, a database that
// does not exist, a destination that does, and a missing DEST.
func TestRunBackupRefuses(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "taken.db")
	if err := os.WriteFile(existing, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live.db")
	srv, err := payoutd.New(context.Background(), payoutd.Config{DB: live}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	tests := []struct {
		name string
		args []string
		want string // in the error; "" for a usage error
	}{
		{"PostgreSQL", []string{"backup", filepath.Join(dir, "pg.db"), "--db", "postgres://nobody@127.0.0.1:1/none"}, "pg_dump"},
		{"a database that does not exist", []string{"backup", filepath.Join(dir, "out.db"), "--db", filepath.Join(dir, "typo.db")}, "no such database"},
		{"a destination that exists", []string{"backup", existing, "--db", live}, "exists"},
		{"no destination", []string{"backup", "--db", live}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.args, env(nil), &bytes.Buffer{})
			switch {
			case err == nil:
				t.Fatal("backup ran")
			case tt.want == "" && cli.ExitCode(err) != 2:
				t.Fatalf("%v, want a usage error", err)
			case !strings.Contains(err.Error(), tt.want):
				t.Fatalf("%v, want it to say %q", err, tt.want)
			}
		})
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "x" {
		t.Errorf("the existing destination was changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo.db")); err == nil {
		t.Error("backup of a mistyped path created a database there")
	}
}
