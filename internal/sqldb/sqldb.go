// Package sqldb opens the two SQL engines disburse runs on, SQLite (embedded, the default) and
// PostgreSQL (production), behind one database/sql handle, and gives both stores what they share:
// placeholder rebinding, write transactions, ordered embedded migrations and error
// classification. It knows nothing of payouts or operators.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect names an engine.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open database of either engine.
type DB struct {
	*sql.DB
	Dialect Dialect
}

// IsPostgresDSN reports whether dsn names a PostgreSQL database rather than a SQLite file.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens dsn: a postgres:// URL, or else the path of a SQLite file (its folder is created).
// SQLite runs in WAL mode with a busy timeout, foreign keys on, and write transactions that take
// the write lock at BEGIN (BEGIN IMMEDIATE), so two writers never deadlock upgrading a read lock.
func Open(ctx context.Context, dsn string) (*DB, error) {
	var db *DB
	if IsPostgresDSN(dsn) {
		sqlDB, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, err
		}
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(20)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		db = &DB{DB: sqlDB, Dialect: Postgres}
	} else {
		if dsn == "" {
			return nil, errors.New("sqldb: empty database path")
		}
		if dir := filepath.Dir(dsn); dir != "." {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("sqldb: create database folder: %w", err)
			}
		}
		if err := ownerOnly(dsn); err != nil {
			return nil, fmt.Errorf("sqldb: %w", err)
		}
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
		sqlDB, err := sql.Open("sqlite", "file:"+dsn+"?"+q.Encode())
		if err != nil {
			return nil, err
		}
		// Writers queue on SQLite's single write lock; a few connections let WAL readers run
		// beside the writer without spawning hundreds of connections under load.
		sqlDB.SetMaxOpenConns(8)
		sqlDB.SetMaxIdleConns(8)
		db = &DB{DB: sqlDB, Dialect: SQLite}
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqldb: connect: %w", err)
	}
	return db, nil
}

// Rebind rewrites the ? placeholders of query for the engine: PostgreSQL wants $1, $2, ...
// Queries are written once with ? and never contain a literal question mark.
func (db *DB) Rebind(query string) string { return Rebind(db.Dialect, query) }

// Rebind rewrites the ? placeholders of query for dialect d.
func Rebind(d Dialect, query string) string {
	if d != Postgres || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// InTx runs fn in a write transaction and commits it when fn returns nil. Transactions that lose
// a deadlock or serialization race on PostgreSQL, or find SQLite busy, are retried a few times,
// so fn must not have effects outside the transaction.
func (db *DB) InTx(ctx context.Context, fn func(*sql.Tx) error) error {
	const attempts = 5
	var err error
	for attempt := 0; attempt < attempts; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
			}
		}
		err = db.inTx(ctx, fn)
		if err == nil || !IsRetryable(err) {
			return err
		}
	}
	return err
}

func (db *DB) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// IsUniqueViolation reports whether err is a unique or primary key constraint failure.
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		c := liteErr.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// IsRetryable reports whether err is a transient conflict worth retrying the transaction for.
func IsRetryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "40001" || pgErr.Code == "40P01"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		c := liteErr.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

// Micros converts t to the integer microseconds since the epoch that both engines store.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// FromMicros converts stored microseconds back to a UTC time.
func FromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// ownerOnly creates the SQLite file path as 0600 when it is missing, and makes it and its -wal
// and -shm files 0600 when an older version left them readable by others. SQLite gives the -wal
// and -shm files it creates the mode of the database file.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
