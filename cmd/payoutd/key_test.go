package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// payoutd check with another key than the database's refuses, saying what to set, and checks
// nothing.
func TestRunCheckRefusesAnotherKey(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, db string) {
		seeded(t, db)
		var out bytes.Buffer
		err := run(context.Background(), []string{"check", "--db", db},
			env(map[string]string{"DISBURSE_ENCRYPTION_KEY": strings.Repeat("ef", 32)}), &out)
		if !errors.Is(err, service.ErrWrongKey) {
			t.Fatalf("check with another key: %v, want ErrWrongKey\n%s", err, out.String())
		}
		if !strings.Contains(err.Error(), "--encryption-key") || strings.Contains(out.String(), "ok:") {
			t.Errorf("check with another key says %v\n%s", err, out.String())
		}
	})
}

// payoutd check of a SQLite database restored without its key file refuses, naming the file.
func TestRunCheckRefusesARestoreWithoutItsKeyFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "disburse.db")
	srv, err := payoutd.New(context.Background(), payoutd.Config{DB: db}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.CreateApp(context.Background(), "Restored"); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := os.Remove(payoutd.KeyFile(db)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = run(context.Background(), []string{"check", "--db", db}, env(nil), &out)
	if err == nil || !strings.Contains(err.Error(), payoutd.KeyFile(db)) {
		t.Fatalf("check without the key file: %v, want it to name %s\n%s", err, payoutd.KeyFile(db), out.String())
	}
	if _, err := os.Stat(payoutd.KeyFile(db)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("check made a key file beside the restored database (stat: %v)", err)
	}
}

// payoutd check and backup refuse a database that does not exist, creating nothing: no SQLite
// file, no key file, no folder, no schema in an empty PostgreSQL database.
func TestCheckAndBackupRefuseAMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pg := pgtest.DSN(t)
	tests := []struct {
		name      string
		args      []string
		db        string
		keyOnFile bool // no key configured: the one in the database's key file, were there one
	}{
		{"check of a mistyped path", []string{"check"}, filepath.Join(dir, "typo.db"), false},
		{"check of a mistyped path, the key on file", []string{"check"}, filepath.Join(dir, "typo-keyfile.db"), true},
		{"check in a folder that does not exist", []string{"check"}, filepath.Join(dir, "nowhere", "typo.db"), false},
		{"check of an empty file", []string{"check"}, empty, false},
		{"check of an empty PostgreSQL database", []string{"check"}, pg, false},
		{"backup of an empty file", []string{"backup", filepath.Join(dir, "copy.db")}, empty, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			vars := map[string]string{"DISBURSE_ENCRYPTION_KEY": testKey}
			if tt.keyOnFile {
				vars = nil
			}
			err := run(context.Background(), append(tt.args, "--db", tt.db), env(vars), &out)
			if err == nil || !strings.Contains(err.Error(), "no such database") {
				t.Fatalf("%v, want no such database\n%s", err, out.String())
			}
		})
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Name() != "empty.db" {
		t.Errorf("files left in the folder: %v, want only empty.db", left)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file was written: %v, %v", fi, err)
	}
	db, err := sqldb.Open(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("check made %d tables in the empty PostgreSQL database", tables)
	}
}
