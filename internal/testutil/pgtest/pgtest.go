// Package pgtest gives tests a real, throwaway PostgreSQL database.
//
// Each call of DSN creates a fresh, empty database and drops it when the test ends. The server
// is the one named by DISBURSE_TEST_POSTGRES (the DSN of a superuser on a running server), or
// else a private cluster that pgtest starts once per test binary from the PostgreSQL binaries on
// the machine, tuned for speed and not for durability. A package that uses pgtest stops that
// cluster and removes its files by calling Main from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// Without PostgreSQL binaries a test is skipped, except when CI=true, where it fails. Under
// go test -short every test that asks for a database is skipped: the fast loop runs SQLite only.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// EnvDSN names the environment variable that points the tests at a running server instead of a
// private cluster. Its value is a postgres:// DSN of a superuser (one that may CREATE DATABASE).
const EnvDSN = "DISBURSE_TEST_POSTGRES"

// The server is shared by every test of one test binary: starting a cluster takes seconds,
// creating a database takes milliseconds.
var (
	once   sync.Once
	shared *server
	seq    atomic.Uint64
)

// server is where the test databases are created.
type server struct {
	adminDSN    string
	admin       *sql.DB
	cluster     *cluster // nil when the server is not ours
	unavailable string   // why there is no PostgreSQL on this machine; the test is skipped
	err         error    // PostgreSQL is there but could not be used; the test fails
}

// DSN returns the postgres:// DSN of a new, empty database that belongs to t alone and is dropped
// when t ends (after t's own cleanups, so close connections in t.Cleanup or defer).
func DSN(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("pgtest: PostgreSQL tests do not run under -short")
	}
	s := get()
	if s.unavailable != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgtest: %s (CI=true, so PostgreSQL is required)", s.unavailable)
		}
		t.Skipf("pgtest: %s; install PostgreSQL or set %s", s.unavailable, EnvDSN)
	}
	if s.err != nil {
		t.Fatalf("pgtest: %v", s.err)
	}

	name := databaseName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.admin.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// FORCE ends connections the test left open, so a leak cannot keep the database alive.
		if _, err := s.admin.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	dsn, err := withDatabase(s.adminDSN, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// EachEngine runs test once per engine disburse supports, as subtests "sqlite" and "postgres",
// each with the DSN of a fresh, empty database: a SQLite file in the subtest's TempDir, and a
// database from DSN.
func EachEngine(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { test(t, filepath.Join(t.TempDir(), "test.db")) })
	t.Run("postgres", func(t *testing.T) { test(t, DSN(t)) })
}

// Main runs the tests of m, then stops the cluster that pgtest started, if any, and removes its
// files. It returns the exit code for os.Exit.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.close()
	}
	return code
}

func get() *server {
	once.Do(func() { shared = open() })
	return shared
}

func open() *server {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return connect(dsn, nil)
	}
	bindir, err := findBinaries()
	if err != nil {
		return &server{unavailable: err.Error()}
	}
	c, dsn, err := startCluster(bindir)
	if err != nil {
		return &server{err: err}
	}
	return connect(dsn, c)
}

// connect opens the admin connection and waits until the server accepts it. A cluster that exits
// while we wait is reported at once with its log.
func connect(dsn string, c *cluster) *server {
	s := &server{adminDSN: dsn, cluster: c}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		s.err = err
		return s
	}
	s.admin = db
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return s
		}
		if c != nil && c.hasExited() {
			s.err = fmt.Errorf("postgres exited during start-up: %v\n%s", c.exitErr, c.log())
			return s
		}
		if time.Now().After(deadline) {
			s.err = fmt.Errorf("server at %s did not accept connections: %w", redact(dsn), err)
			if c != nil {
				s.err = fmt.Errorf("%w\n%s", s.err, c.log())
			}
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) close() {
	if s.admin != nil {
		s.admin.Close()
	}
	if s.cluster != nil {
		s.cluster.stop()
	}
}

// databaseName makes a unique, valid database name that still says which test it belongs to,
// which helps when looking at a shared server. The random part keeps test binaries that share a
// server via DISBURSE_TEST_POSTGRES apart.
func databaseName(testName string) string {
	var slug strings.Builder
	for _, r := range strings.ToLower(testName) {
		if slug.Len() >= 32 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			slug.WriteRune(r)
		} else {
			slug.WriteByte('_')
		}
	}
	random := make([]byte, 4)
	rand.Read(random)
	return fmt.Sprintf("pgtest_%s_%d_%s", hex.EncodeToString(random), seq.Add(1), slug.String())
}

// withDatabase returns dsn pointed at another database of the same server.
func withDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvDSN, err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// redact hides a password in dsn before it is printed.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable DSN)"
	}
	return u.Redacted()
}
