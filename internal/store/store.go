// Package store keeps the Payout Service's data in SQL through database/sql: SQLite by default,
// PostgreSQL in production. Every statement is written once, with ? placeholders rebound for the
// engine; only the DDL differs per engine. One file per noun.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

//go:embed migrations
var migrations embed.FS

// Store is the Payout Service's database. Its read methods run outside any transaction; InTx
// hands a Queries bound to one write transaction.
type Store struct {
	*Queries
	db *sqldb.DB
}

// Queries are the statements, bound either to the database or to one transaction.
type Queries struct {
	conn    conn
	db      *sqldb.DB
	tx      *sql.Tx // the write transaction bound, if any: reads there lock what they read (PostgreSQL)
	batch   *sqldb.Batch
	dialect sqldb.Dialect
	intent  service.Intent // what the transaction's job said it will read and claim
	// chainKey hashes the entries of the ledger's chains (chain.go).
	chainKey []byte
	// writeHook hears of a job's statements and held rows (HookWrites); applying is set while
	// Apply runs.
	writeHook func(statement string, inApply bool)
	applying  bool

	// job is, in a write transaction, its job's part of the batch: what it added to what the
	// batch writes before its commit, and the one undo of it (job.go).
	job *jobState

	// failed is an error that must fail the transaction but could not be returned where it
	// happened (before a queryRow).
	failed error
}

// conn is what *sql.DB and *sql.Tx have in common.
type conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Open opens dsn (a SQLite file path or a postgres:// URL) and brings its schema up to date.
func Open(ctx context.Context, dsn string) (*Store, error) {
	return OpenWith(ctx, dsn, sqldb.Timeouts{})
}

// OpenWith is Open with the timeouts of PostgreSQL's statements.
func OpenWith(ctx context.Context, dsn string, timeouts sqldb.Timeouts) (*Store, error) {
	db, err := sqldb.OpenWith(ctx, dsn, timeouts)
	if err != nil {
		return nil, err
	}
	return migrated(ctx, db)
}

// migrated brings the schema of db up to date and returns the store on it; it closes db when it
// fails.
func migrated(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if err := db.Migrate(ctx, migrations, "migrations", "schema_migrations"); err != nil {
		db.Close()
		return nil, err
	}
	s := &Store{Queries: &Queries{conn: db.DB, db: db, dialect: db.Dialect}, db: db}
	db.OnBatchStart(s.startBatch)
	return s, nil
}

// KeyLedger hashes the ledger's chains under a key derived from the service's (ledger.ChainKey)
// and chains the postings of a database made before the ledger had chains (ChainUnchained).
// payoutd calls it once the database accepted its key and before anything writes: a store never
// keyed hashes under no key, which tests and tools that write no service's ledger may use.
func (s *Store) KeyLedger(ctx context.Context, serviceKey []byte) error {
	s.chainKey = ledger.ChainKey(serviceKey)
	return s.ChainUnchained(ctx)
}

// ErrNoDatabase is OpenExisting's refusal of a database that does not exist or holds no schema of
// the store's: a mistyped path, an empty file, an empty PostgreSQL database.
var ErrNoDatabase = errors.New("no such database")

// sqliteHeader is how every SQLite database file begins.
const sqliteHeader = "SQLite format 3\x00"

// OpenExisting is OpenWith for a database that must exist already, for the commands that read
// one (payoutd check, backup): a SQLite path is read before it is opened, so that nothing is
// created at a mistyped one, and a database without the store's schema is refused before any
// migration could write it.
func OpenExisting(ctx context.Context, dsn string, timeouts sqldb.Timeouts) (*Store, error) {
	if !sqldb.IsPostgresDSN(dsn) && !isSQLiteFile(dsn) {
		return nil, fmt.Errorf("%s: %w", dsn, ErrNoDatabase)
	}
	db, err := sqldb.OpenWith(ctx, dsn, timeouts)
	if err != nil {
		return nil, err
	}
	ok, err := hasSchema(ctx, db)
	switch {
	case err != nil:
	case !ok && db.Dialect == sqldb.Postgres: // the URL is not printed: it may hold a password
		err = fmt.Errorf("%w: the PostgreSQL database holds no tables of payoutd", ErrNoDatabase)
	case !ok:
		err = fmt.Errorf("%s: %w: it holds no tables of payoutd", dsn, ErrNoDatabase)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return migrated(ctx, db)
}

// isSQLiteFile reports whether path is a file that begins as a SQLite database does.
func isSQLiteFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == sqliteHeader
}

// hasSchema reports whether db holds the table Migrate records the applied migrations in.
func hasSchema(ctx context.Context, db *sqldb.DB) (bool, error) {
	query := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	if db.Dialect == sqldb.Postgres {
		query = `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_migrations'`
	}
	var n int
	err := db.QueryRowContext(ctx, query).Scan(&n)
	return n > 0, err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// DB is the underlying handle, for tests that inspect query plans.
func (s *Store) DB() *sqldb.DB { return s.db }

// InTx runs fn in one write transaction, which may be shared with other callers' (group commit).
func (s *Store) InTx(ctx context.Context, fn func(q service.Queries) error) error {
	return s.InTxWith(ctx, service.Intent{}, fn)
}

// InTxWith is InTx for a job that says beforehand which users it reads and which key it claims:
// the batch reads and claims those of all its jobs at once, before they run (startBatch).
func (s *Store) InTxWith(ctx context.Context, intent service.Intent, fn func(q service.Queries) error) error {
	return s.db.InBatch(ctx, intent, func(tx *sql.Tx, b *sqldb.Batch) error {
		q := &Queries{conn: tx, db: s.db, tx: tx, batch: b, dialect: s.db.Dialect, intent: intent, chainKey: s.chainKey,
			writeHook: s.writeHook}
		q.job = q.batchState().startJob()
		if err := fn(q); err != nil {
			return err
		}
		return q.failed
	})
}

// prepare readies a statement: the engine's placeholders, a prepared statement where the engine
// has them cached (nil otherwise), and, in a write transaction, a context the caller cannot
// cancel: the transaction is shared, and a statement canceled halfway would break it for all.
func (q *Queries) prepare(ctx context.Context, query string) (context.Context, string, *sql.Stmt) {
	if q.tx != nil {
		ctx = context.WithoutCancel(ctx)
	}
	query = sqldb.Rebind(q.dialect, query)
	return ctx, query, q.db.Prepared(ctx, q.tx, query)
}

// A table is one whose rows a batch holds back (held.go) or keeps copies of (batch_reads.go), or
// otherTables, all the rest. Every statement sent in a write transaction says, in code, which
// of them it reads and writes (touching); the statement's text is never read for it. What it
// says decides what is done first: held rows of a table it reads or writes are written, so it
// sees them; copies are dropped when it writes a table they come from; and a statement that
// writes any table makes its job one that changed rows (sqldb.Batch.Changed).
type table uint16

const (
	transfersTable table = 1 << iota
	postingsTable
	taxYearsTable
	eventsTable
	deliveriesTable
	appsTable
	endpointsTable
	usersTable
	accountsTable
	payoutMethodsTable
	// keysTable is the idempotency keys, whose claims and releases (claimingKeys) do not make
	// their job one that changed rows: the claims of a job that fails are given back with the
	// batch's (jobState.undo), and a key released is as good as expired. Other statements on it
	// are writingOthers.
	keysTable
	otherTables

	heldTables   = transfersTable | postingsTable | taxYearsTable | eventsTable | deliveriesTable
	copiedTables = appsTable | endpointsTable | usersTable | accountsTable | payoutMethodsTable
)

// touching is what a statement says it touches of the tables a batch holds rows of or copies.
type touching struct{ reads, writes table }

var (
	// touchingAll is what exec, query and queryRow assume of a statement that says nothing:
	// the held rows are written first and the copies dropped, whatever the statement is.
	touchingAll = touching{heldTables | copiedTables | otherTables, heldTables | copiedTables | otherTables}
	// readingOthers and writingOthers are statements on other tables only (idempotency keys,
	// links, flows).
	readingOthers = reading(otherTables)
	writingOthers = writing(otherTables)
	claimingKeys  = writing(keysTable)
)

func reading(t table) touching { return touching{reads: t} }
func writing(t table) touching { return touching{reads: t, writes: t} }

func (q *Queries) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.execTouching(ctx, touchingAll, query, args...)
}

func (q *Queries) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.queryTouching(ctx, touchingAll, query, args...)
}

func (q *Queries) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return q.queryRowTouching(ctx, touchingAll, query, args...)
}

func (q *Queries) execTouching(ctx context.Context, t touching, query string, args ...any) (sql.Result, error) {
	if err := q.beforeStatement(ctx, t, query); err != nil {
		return nil, err
	}
	ctx, query, stmt := q.prepare(ctx, query)
	if stmt != nil {
		return stmt.ExecContext(ctx, args...)
	}
	return q.conn.ExecContext(ctx, query, args...)
}

func (q *Queries) queryTouching(ctx context.Context, t touching, query string, args ...any) (*sql.Rows, error) {
	if err := q.beforeStatement(ctx, t, query); err != nil {
		return nil, err
	}
	ctx, query, stmt := q.prepare(ctx, query)
	if stmt != nil {
		return stmt.QueryContext(ctx, args...)
	}
	return q.conn.QueryContext(ctx, query, args...)
}

func (q *Queries) queryRowTouching(ctx context.Context, t touching, query string, args ...any) *sql.Row {
	if err := q.beforeStatement(ctx, t, query); err != nil && q.failed == nil {
		q.failed = err // InTx fails with it: the transaction never commits
	}
	ctx, query, stmt := q.prepare(ctx, query)
	if stmt != nil {
		return stmt.QueryRowContext(ctx, args...)
	}
	return q.conn.QueryRowContext(ctx, query, args...)
}

// lockRow is appended to a read of rows a write transaction will change: on PostgreSQL the
// transaction locks them, so a concurrent writer of the same row waits and then reads what the
// first wrote, instead of acting on a stale copy. SQLite needs nothing: the write transaction
// holds the one write lock. of names the table when the query joins others.
//
// In a batch shared with other jobs the lock is not waited for, and rows another transaction
// holds are left out (SKIP LOCKED): batches lock rows in no common order, and a wait could close
// a deadlock, which PostgreSQL breaks only after deadlock_timeout. A lock refused with an error
// instead (NOWAIT) would abort the whole transaction. NO KEY UPDATE leaves foreign-key checks of
// other writers (KEY SHARE) unblocked.
func (q *Queries) lockRow(of string) string { return q.lockRowSkipping(of, q.skipsLockedRows()) }

// lockRowSkipping is lockRow, leaving out the rows other transactions hold when skip.
func (q *Queries) lockRowSkipping(of string, skip bool) string {
	if q.dialect != sqldb.Postgres || q.tx == nil {
		return ""
	}
	lock := " FOR UPDATE"
	if skip {
		lock = " FOR NO KEY UPDATE"
	}
	if of != "" {
		lock += " OF " + of
	}
	if skip {
		lock += " SKIP LOCKED"
	}
	return lock
}

// skipsLockedRows reports whether lockRow leaves out the rows other transactions hold.
func (q *Queries) skipsLockedRows() bool {
	return q.dialect == sqldb.Postgres && q.batch != nil && q.batch.Shared()
}

// errRowHeld fails a job of a shared batch that needs a row another transaction holds: it runs
// again alone, where it waits for the row (sqldb.ErrRetry).
var errRowHeld = fmt.Errorf("store: a row this job needs is locked by another transaction: %w", sqldb.ErrRetry)

// queryRowLocked is queryRowTouching for a read of one row the transaction locks (lockRow),
// which has the lock appended. Where lockRow leaves out a row another transaction holds, the
// same read without the lock tells that row from none: the answer is errRowHeld.
func (q *Queries) queryRowLocked(ctx context.Context, t touching, query, of string, args ...any) lockedRow {
	r := lockedRow{row: q.queryRowTouching(ctx, t, query+q.lockRow(of), args...)}
	if q.skipsLockedRows() {
		r.unlocked = func() *sql.Row { return q.queryRowTouching(ctx, t, query, args...) }
	}
	return r
}

// lockedRow is the answer of queryRowLocked.
type lockedRow struct {
	row      *sql.Row
	unlocked func() *sql.Row // the read without the lock, when a held row was left out
}

func (r lockedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if r.unlocked == nil || !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err := r.unlocked().Scan(dest...); err != nil {
		return err // sql.ErrNoRows: there is no such row
	}
	return errRowHeld
}

// execOne runs a statement that must change exactly one row; none is ErrNoRecord.
func (q *Queries) execOne(ctx context.Context, t touching, query string, args ...any) error {
	res, err := q.execTouching(ctx, t, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return service.ErrNoRecord
	}
	return nil
}

// noRecord maps sql.ErrNoRows to service.ErrNoRecord.
func noRecord(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return service.ErrNoRecord
	}
	return err
}

// nullString stores "" as NULL.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// metadataValue stores metadata as text, or NULL.
func metadataValue(m payouts.Metadata) sql.NullString {
	return sql.NullString{String: string(m), Valid: len(m) > 0}
}

func metadataOf(s sql.NullString) payouts.Metadata {
	if !s.Valid || s.String == "" {
		return nil
	}
	return payouts.Metadata(s.String)
}

func stringPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

// wrap prefixes *errp, when it is set, with the operation that failed. The cause stays
// matchable with errors.Is and errors.As: service.ErrNoRecord, service.ErrOverdraft and the
// *payouts.Error a store answers for a taken email.
func wrap(errp *error, format string, args ...any) {
	if *errp != nil {
		*errp = fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), *errp)
	}
}

// beforeStatement readies the transaction for a statement of a job that touches t: a job whose
// statement writes is one that changed rows, the held rows of the tables it touches not written
// yet are written first (mustBeWritten), and the batch view's copies are dropped if it writes a
// table they come from.
func (q *Queries) beforeStatement(ctx context.Context, t touching, query string) error {
	j := q.job
	if j == nil {
		return nil
	}
	if t.writes&^keysTable != 0 {
		q.batch.Changed()
	}
	q.wrote(query)
	if t.writes&copiedTables != 0 {
		j.dropView()
	}
	tables := mustBeWritten(t.reads | t.writes)
	if !j.st.held.unwritten(tables) {
		return nil
	}
	return q.writeHeld(ctx, tables)
}
