package sqldb_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// engines runs test against a fresh database of each engine.
func engines(t *testing.T, test func(t *testing.T, db *sqldb.DB)) {
	t.Helper()
	pgtest.EachEngine(t, func(t *testing.T, dsn string) { test(t, open(t, dsn)) })
}

func open(t *testing.T, dsn string) *sqldb.DB {
	t.Helper()
	db, err := sqldb.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestRebind(t *testing.T) {
	tests := []struct {
		dialect sqldb.Dialect
		query   string
		want    string
	}{
		{sqldb.SQLite, "SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = ? AND c = ?"},
		{sqldb.Postgres, "SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{sqldb.Postgres, "SELECT 1", "SELECT 1"},
		{sqldb.Postgres, "INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?)", "INSERT INTO t VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)"},
	}
	for _, tt := range tests {
		t.Run(string(tt.dialect)+" "+tt.query, func(t *testing.T) {
			if got := sqldb.Rebind(tt.dialect, tt.query); got != tt.want {
				t.Errorf("Rebind = %q, want %q", got, tt.want)
			}
			db := &sqldb.DB{Dialect: tt.dialect}
			if got := db.Rebind(tt.query); got != tt.want {
				t.Errorf("DB.Rebind = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMicros(t *testing.T) {
	newYork := time.FixedZone("EST", -5*60*60)
	tests := []struct {
		name string
		in   time.Time
		want time.Time
	}{
		{"the epoch", time.Unix(0, 0), time.Unix(0, 0).UTC()},
		{"nanoseconds are cut to microseconds", time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)},
		{"another zone comes back as the same instant in UTC", time.Date(2026, 1, 2, 3, 4, 5, 0, newYork), time.Date(2026, 1, 2, 8, 4, 5, 0, time.UTC)},
		{"before the epoch", time.Date(1969, 12, 31, 23, 59, 59, 1000, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 1000, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sqldb.FromMicros(sqldb.Micros(tt.in))
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("round trip of %v = %v, want %v in UTC", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsPostgresDSN(t *testing.T) {
	tests := []struct {
		dsn  string
		want bool
	}{
		{"postgres://u@host/db", true},
		{"postgresql://u@host/db", true},
		{"./data/disburse.db", false},
		{"/var/lib/postgres/disburse.db", false},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			if got := sqldb.IsPostgresDSN(tt.dsn); got != tt.want {
				t.Errorf("IsPostgresDSN(%q) = %v, want %v", tt.dsn, got, tt.want)
			}
		})
	}
}

func TestOpenSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "folder", "disburse.db")
	db := open(t, path)
	if db.Dialect != sqldb.SQLite {
		t.Errorf("Dialect = %s, want sqlite", db.Dialect)
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		t.Errorf("database folder not created: %v", err)
	}
	pragmas := []struct{ name, want string }{{"journal_mode", "wal"}, {"foreign_keys", "1"}, {"busy_timeout", "10000"}}
	for _, p := range pragmas {
		var got string
		if err := db.QueryRow("PRAGMA " + p.name).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", p.name, err)
		}
		if got != p.want {
			t.Errorf("PRAGMA %s = %s, want %s", p.name, got, p.want)
		}
	}
	if _, err := sqldb.Open(context.Background(), ""); err == nil {
		t.Error("Open of an empty path succeeded")
	}
}

func TestOpenPostgres(t *testing.T) {
	db := open(t, pgtest.DSN(t))
	if db.Dialect != sqldb.Postgres {
		t.Errorf("Dialect = %s, want postgres", db.Dialect)
	}
	var one int
	if err := db.QueryRow(db.Rebind("SELECT ?::int"), 1).Scan(&one); err != nil || one != 1 {
		t.Errorf("query: %d, %v", one, err)
	}
}

func TestOpenPostgresUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Port 1 on the loopback refuses at once: Open must report it, not return a dead handle.
	if _, err := sqldb.Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"); err == nil {
		t.Error("Open of an unreachable server succeeded")
	}
}
