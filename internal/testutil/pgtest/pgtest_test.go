package pgtest_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T, dsn string) *sqldb.DB {
	t.Helper()
	db, err := sqldb.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func tableExists(t *testing.T, db *sqldb.DB, table string) bool {
	t.Helper()
	var name sql.NullString
	if err := db.QueryRow(`SELECT to_regclass($1)::text`, table).Scan(&name); err != nil {
		t.Fatalf("look up table %s: %v", table, err)
	}
	return name.Valid
}

func databaseName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse %s: %v", dsn, err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

func TestDSNGivesSeparateEmptyDatabases(t *testing.T) {
	dsnA, dsnB := pgtest.DSN(t), pgtest.DSN(t)
	if dsnA == dsnB {
		t.Fatalf("two calls gave the same DSN %s", dsnA)
	}
	if !strings.HasPrefix(dsnA, "postgres://") {
		t.Fatalf("DSN %q is not a postgres:// URL", dsnA)
	}
	a, b := open(t, dsnA), open(t, dsnB)
	if a.Dialect != sqldb.Postgres {
		t.Fatalf("sqldb.Open took %s for %s, want postgres", a.Dialect, dsnA)
	}

	var tables int
	if err := a.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Fatalf("new database has %d tables, want none", tables)
	}

	if _, err := a.Exec(`CREATE TABLE marker (id bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(`INSERT INTO marker (id) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if !tableExists(t, a, "marker") {
		t.Fatal("table created in the first database is not there")
	}
	if tableExists(t, b, "marker") {
		t.Fatal("table created in the first database shows up in the second")
	}
}

func TestDSNDropsDatabaseWhenTestEnds(t *testing.T) {
	var inner string
	t.Run("inner", func(t *testing.T) {
		inner = pgtest.DSN(t)
		open(t, inner) // left open until cleanup: the drop must still succeed
	})
	if t.Failed() || inner == "" {
		return
	}

	db := open(t, pgtest.DSN(t))
	var exists bool
	err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, databaseName(t, inner)).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("database %s still exists after its test ended", databaseName(t, inner))
	}
}

func TestDSNFromParallelTests(t *testing.T) {
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			db := open(t, pgtest.DSN(t))
			if _, err := db.Exec(`CREATE TABLE marker (n int)`); err != nil {
				t.Fatalf("create table in a fresh database: %v", err)
			}
			if _, err := db.Exec(`INSERT INTO marker (n) VALUES ($1)`, i); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.QueryRow(`SELECT n FROM marker`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != i {
				t.Fatalf("read %d, wrote %d", n, i)
			}
		})
	}
}

// TestDSNSkipsUnderShort: under go test -short a test that asks for a database is skipped, with
// PostgreSQL installed or not, and says why.
func TestDSNSkipsUnderShort(t *testing.T) {
	out, _ := exec.Command(os.Args[0], "-test.run=^TestDSNGivesSeparateEmptyDatabases$", "-test.short", "-test.v").CombinedOutput()
	if !strings.Contains(string(out), "--- SKIP: TestDSNGivesSeparateEmptyDatabases") || !strings.Contains(string(out), "under -short") {
		t.Errorf("under -short the test was not skipped saying why:\n%s", out)
	}
}
