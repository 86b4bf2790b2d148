package dbtemplate_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/dbtemplate"
	_ "modernc.org/sqlite"
)

// TestCopiesAreMigratedAndApart: each copy opens with the whole schema, without migrating again,
// only its owner may read it, and what one test writes in its copy is not in another's.
func TestCopiesAreMigratedAndApart(t *testing.T) {
	ctx := context.Background()
	migrations := 0
	tp := dbtemplate.New(func(ctx context.Context, path string) error {
		migrations++
		st, err := dashstore.Open(ctx, path)
		if err != nil {
			return err
		}
		return st.Close()
	})
	dir := t.TempDir()
	open := func(name string) *dashstore.Store {
		t.Helper()
		path := filepath.Join(dir, name)
		tp.Write(t, path)
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, info.Mode().Perm())
		}
		// Read before Open, which would migrate a copy that lacks the schema and hide it.
		if !hasTable(t, path, "operators") {
			t.Errorf("%s: the copy has no operators table before it is opened", name)
		}
		st, err := dashstore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	first, second := open("first.db"), open("second.db")
	if migrations != 1 {
		t.Errorf("the template was migrated %d times, want once", migrations)
	}
	op := dashstore.Operator{Email: "ada@example.com", Name: "Ada", Role: dashstore.RoleAdmin, PasswordHash: "x"}
	if err := first.CreateOperator(ctx, &op, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatalf("the copy lacks the schema: %v", err)
	}
	for name, st := range map[string]*dashstore.Store{"first": first, "second": second} {
		ops, err := st.Operators(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"first": 1, "second": 0}[name]
		if len(ops) != want {
			t.Errorf("the %s copy has %d operators, want %d", name, len(ops), want)
		}
	}
}

// hasTable reports whether the SQLite file at path has the table, read without migrating it.
func hasTable(t *testing.T, path, table string) bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n == 1
}

// TestFailedMigrationFailsEveryWrite: a template that cannot be made fails each test that asks
// for a copy, with the reason, and is not tried again.
func TestFailedMigrationFailsEveryWrite(t *testing.T) {
	tries := 0
	tp := dbtemplate.New(func(context.Context, string) error { tries++; return errors.New("no schema today") })
	for range 2 {
		ft := &fatalRecorder{TB: t}
		func() {
			defer func() { recover() }()
			tp.Write(ft, filepath.Join(t.TempDir(), "x.db"))
		}()
		if ft.msg == "" {
			t.Error("Write did not fail the test")
		}
	}
	if tries != 1 {
		t.Errorf("migrate ran %d times, want once", tries)
	}
}

// fatalRecorder keeps Fatalf's message and stops the caller as Fatalf does, without failing t.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = format
	panic("fatal")
}
