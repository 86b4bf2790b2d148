// Package sqldb opens the two SQL engines disburse runs on, SQLite (embedded, the default) and
// PostgreSQL (production), behind one database/sql handle, and gives both stores what they share:
// placeholder rebinding, write transactions, ordered embedded migrations and error
// classification. It knows nothing of payouts or operators.
package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect names an engine.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open database of either engine. Its embedded pool serves reads; write transactions
// go through InTx to the writers, which commit them in groups.
type DB struct {
	*sql.DB
	Dialect Dialect
	writes  *sql.DB // SQLite: its own one connection, the only writer; PostgreSQL: the same pool
	writers *writers
	// SQLite's prepared statements, per pool (nil on PostgreSQL).
	readStmts, writeStmts *stmts
	stop                  context.CancelFunc // ends the background checkpoints
	stopped               chan struct{}
	tuning                tuning
	// logRestart is where a restart of SQLite's write-ahead log stands: the checkpointer asks
	// for one once the log has grown past tuning.logRestartFrames, and the writer runs it
	// between two batches (restartLog) and answers. When a reader refused it (a backup may
	// read for minutes) the checkpointer waits longer before it asks again, as every attempt
	// holds up the writes.
	logRestart    atomic.Int32
	restartsTried atomic.Int64 // the writer's restarts, refused or not (tests read it)
}

// The states of DB.logRestart.
const (
	restartIdle int32 = iota
	restartAsked
	restartRunning
	restartRefused
)

// tuning is how often SQLite's log is checkpointed and how large it may grow before it is
// restarted; tests make both small.
type tuning struct {
	checkpointEvery  time.Duration
	logRestartFrames int
}

// caughtUp is how long a checkpoint of what little the writer added meanwhile takes.
const caughtUp = 2 * time.Millisecond

// maxRestartWait is the longest the checkpointer waits, after a restart a reader refused,
// before it asks the writer again; the wait doubles from one checkpoint interval up to it.
const maxRestartWait = 5 * time.Second

// defaultTuning checkpoints once a second: a checkpoint copies each page the log holds once,
// however many commits rewrote it, and the pages every commit rewrites (the accounts', the
// last of each index) are copied five times less often than every 200 ms, a fifth less written
// per transfer at 64 clients (BENCHMARKS.md, "Issue 50 speed").
func defaultTuning() tuning {
	return tuning{
		checkpointEvery:  time.Second,
		logRestartFrames: 4096, // 16 MiB at 4 KiB pages
	}
}

// IsPostgresDSN reports whether dsn names a PostgreSQL database rather than a SQLite file.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens dsn: a postgres:// URL, or else the path of a SQLite file (its folder is created).
// Commits are durable on both engines: a transaction that returned nil survives power loss
// (SQLite synchronous=FULL, PostgreSQL synchronous_commit=on).
func Open(ctx context.Context, dsn string) (*DB, error) {
	return OpenWith(ctx, dsn, Timeouts{})
}

// Timeouts bound, on PostgreSQL, how long one statement may wait for a lock (Lock, the
// session's lock_timeout) and how long it may run in all (Statement, statement_timeout): past
// them it fails, and its caller hears the error instead of waiting on, with a writer and the
// batch it runs held meanwhile. Zero is the default; SQLite waits for its write lock up to its
// busy timeout instead.
type Timeouts struct {
	Lock, Statement time.Duration
}

// The default Timeouts: a row lock is held for a batch's few milliseconds, so a wait of seconds
// means a stuck transaction elsewhere; the service runs no statement near half a minute.
const (
	DefaultLockTimeout      = 5 * time.Second
	DefaultStatementTimeout = 30 * time.Second
)

// OpenWith is Open with the timeouts of PostgreSQL's statements.
func OpenWith(ctx context.Context, dsn string, timeouts Timeouts) (*DB, error) {
	return open(ctx, dsn, defaultTuning(), timeouts)
}

func open(ctx context.Context, dsn string, tune tuning, timeouts Timeouts) (*DB, error) {
	var db *DB
	var err error
	if IsPostgresDSN(dsn) {
		db, err = openPostgres(dsn, timeouts)
	} else {
		db, err = openSQLite(dsn)
	}
	if err != nil {
		return nil, err
	}
	db.tuning = tune
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.closePools()
		return nil, fmt.Errorf("sqldb: connect: %w", err)
	}
	// SQLite has one write lock: one writer. On PostgreSQL two batches overlap one's round trips
	// with the other's commit; they lock rows without waiting (see the store's lockRow), so they
	// cannot deadlock each other. More writers make smaller batches that queue on the app
	// wallet's row lock: three and four were slower than two, also once a job cost no round
	// trip of its own. Measured in BENCHMARKS.md.
	writers, between := 1, db.restartLog
	if db.Dialect == Postgres {
		writers, between = 2, nil
	}
	db.writers = startWriters(db.writes, writers, between)
	bg, stop := context.WithCancel(context.Background())
	db.stop, db.stopped = stop, make(chan struct{})
	go db.checkpoints(bg)
	return db, nil
}

func openPostgres(dsn string, timeouts Timeouts) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["synchronous_commit"] = "on"
	cfg.RuntimeParams["lock_timeout"] = milliseconds(cmp.Or(timeouts.Lock, DefaultLockTimeout))
	cfg.RuntimeParams["statement_timeout"] = milliseconds(cmp.Or(timeouts.Statement, DefaultStatementTimeout))
	sqlDB := stdlib.OpenDB(*cfg)
	sqlDB.SetMaxOpenConns(20)
	sqlDB.SetMaxIdleConns(20)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	return &DB{DB: sqlDB, writes: sqlDB, Dialect: Postgres}, nil
}

// milliseconds is d as a PostgreSQL setting in milliseconds, at least 1 (0 would turn it off).
func milliseconds(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }

// busyTimeoutMS is how long a SQLite connection waits for a lock another process holds.
const busyTimeoutMS = 10000

// openSQLite opens the file in WAL mode, so readers never wait for the writer, with foreign keys
// on. Reads get a pool of connections; writes get one connection of their own, whose
// transactions take the write lock at BEGIN (BEGIN IMMEDIATE) and never checkpoint: the
// background checkpoints do, off the write path.
func openSQLite(dsn string) (*DB, error) {
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
	open := func(pragmas ...string) (*sql.DB, error) {
		q := url.Values{}
		for _, p := range append([]string{"busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)"}, pragmas...) {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", "immediate")
		return sql.Open("sqlite", "file:"+dsn+"?"+q.Encode())
	}
	reads, err := open()
	if err != nil {
		return nil, err
	}
	reads.SetMaxOpenConns(8)
	reads.SetMaxIdleConns(8)
	// Statement journals (each savepoint's and each multi-row statement's copy of the pages it
	// changes, for a rollback inside the transaction) stay in memory: on disk they cost a write
	// call per page once past 64 KiB. A crash needs none of them; the WAL is the durable log.
	writes, err := open("wal_autocheckpoint(0)", "temp_store(MEMORY)")
	if err != nil {
		reads.Close()
		return nil, err
	}
	// The writers use one connection at a time; a second lets a statement be prepared while a
	// transaction holds the first (database/sql prepares on whichever connection is free).
	writes.SetMaxOpenConns(2)
	writes.SetMaxIdleConns(2)
	writes.SetConnMaxIdleTime(0)
	return &DB{DB: reads, writes: writes, Dialect: SQLite, readStmts: newStmts(reads), writeStmts: newStmts(writes)}, nil
}

// checkpoints copies SQLite's write-ahead log back into the database from a read connection,
// so no write transaction pays for it. PASSIVE never waits for readers or the writer.
//
// Copied pages stay in the log file until a write transaction begins when all of it has been
// copied and no reader still reads it; only then does SQLite write the log from its start
// again. Under a steady load the writer never finds it so, and the log would grow for as long
// as the load lasts (1.8 GB after 15 s of 64 clients), and so would the time a process
// starting after a crash takes to read it back. So once it is past logRestartFrames pages the
// writer is asked to restart it.
func (db *DB) checkpoints(ctx context.Context) {
	defer close(db.stopped)
	if db.Dialect != SQLite {
		return
	}
	tick := time.NewTicker(db.tuning.checkpointEvery)
	defer tick.Stop()
	var wait time.Duration // after a refused restart
	var askAfter time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if db.logRestart.CompareAndSwap(restartRefused, restartIdle) {
				wait = min(max(2*wait, db.tuning.checkpointEvery), maxRestartWait)
				askAfter = now.Add(wait)
			}
			var busy, logFrames, copied int
			err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
			// -1 pages: another checkpoint (the writer's restart) was running.
			if err == nil && logFrames >= 0 && logFrames < db.tuning.logRestartFrames {
				wait = 0 // restarted
			}
			if err != nil || logFrames < db.tuning.logRestartFrames || now.Before(askAfter) ||
				db.logRestart.Load() != restartIdle {
				continue
			}
			// The writer waits while its restart copies what is left, so first copy again what
			// was written while the last copy ran, until a copy is quick: little is left then.
			for range 8 {
				start := time.Now()
				if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil || time.Since(start) < caughtUp {
					break
				}
			}
			db.logRestart.CompareAndSwap(restartIdle, restartAsked)
		}
	}
}

// restartLog runs on the writer between two batches, when asked by checkpoints: a RESTART
// checkpoint copies what the last PASSIVE one left (a few milliseconds of writes) and waits
// for the readers still reading the log, so the next write transaction writes the log from
// its start. The wait is bounded by a short busy timeout, as every write waits meanwhile; a
// restart that times out is asked for again later, after a wait that doubles while readers
// keep refusing.
func (db *DB) restartLog() {
	if !db.logRestart.CompareAndSwap(restartAsked, restartRunning) {
		return
	}
	outcome := restartRefused
	defer func() { db.logRestart.Store(outcome) }()
	ctx := context.Background()
	conn, err := db.writes.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 20`); err != nil {
		return
	}
	defer func() {
		// A connection that cannot be given its usual wait back is dropped; the pool opens
		// another with the pragmas of its DSN.
		if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = `+strconv.Itoa(busyTimeoutMS)); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	var busy, logFrames, copied int
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &logFrames, &copied)
	db.restartsTried.Add(1)
	if err == nil && busy == 0 {
		outcome = restartIdle
	}
}

// Close lets the write batches under way commit, then closes the database.
func (db *DB) Close() error {
	db.writers.stop()
	db.stop()
	<-db.stopped
	return db.closePools()
}

func (db *DB) closePools() error {
	if db.readStmts != nil {
		db.readStmts.close()
		db.writeStmts.close()
	}
	err := db.DB.Close()
	if db.writes != db.DB {
		err = errors.Join(err, db.writes.Close())
	}
	return err
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

// InTx runs fn in a write transaction and commits it when fn returns nil. The transaction may be
// shared with other callers' (group commit); fn's error runs them again alone, so it undoes fn
// alone (see Batch). A transaction that loses a deadlock or serialization race on PostgreSQL, or finds
// SQLite busy, is run again, so fn must not have effects outside the transaction.
func (db *DB) InTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return db.writers.submit(ctx, false, nil, func(tx *sql.Tx, _ *Batch) error { return fn(tx) })
}

// InBatch is InTx for a store that defers writes to the end of the shared transaction through
// the Batch, and calls Batch.Changed before each statement fn sends that may change rows: a job
// that fails before it does fails alone. intent, the store's own, is what the job said
// beforehand it will read and claim; Batch.Intents hands the batch's.
func (db *DB) InBatch(ctx context.Context, intent any, fn func(*sql.Tx, *Batch) error) error {
	return db.writers.submit(ctx, true, intent, fn)
}

// OnBatchStart sets what runs in the transaction of every batch before its first job, a job the
// writer took alone included (a batch of one, Batch.Shared false): a store reads there, for all
// the jobs at once, what their intents (Batch.Intents) said they will read and claim. It belongs
// to no job; its error fails the batch, whose jobs then run alone, where it does not run. A job
// alone hears its error as its own, and runs again without it if the error is retryable. Nor does
// it run for a job run again after its batch failed.
func (db *DB) OnBatchStart(fn func(ctx context.Context, b *Batch) error) { db.writers.start.Store(&fn) }

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

// IsRetryable reports whether err is a transient conflict worth retrying the transaction for. A
// lock waited for past the lock timeout (lock_not_available) is not: running again would keep
// the caller waiting that long again.
func IsRetryable(err error) bool {
	if errors.Is(err, ErrRetry) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Serialization failure and deadlock.
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
