package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

// The journal-first measurement (issue 24, scope 2, measured before anything is built): what a
// batch's commit costs when a transfer stores one journal row and its wallets' balances, and what
// deriving payoutd's rows from the journal afterwards takes from the writer. Per transfer the
// writer appends ONE row to a journal keyed by a time-ordered integer (its only index) carrying
// what the transfer, its posting, its events and its idempotency claim need, and per batch one
// guarded UPDATE per account (netted, as payoutd's writer does). The writer decides each
// transfer before it writes anything: against the balances it holds in memory (read once per
// account, then kept by adding what it commits; the UPDATE's guard checks them again in the
// database) and against the set of keys the journal holds (loaded when the writer starts, grown
// as it appends). That set stands in for a real store's check of the not-yet-derived tail in
// memory plus a read of the derived key table: the measurement leaves that read out. A refused
// transfer is left out of the batch, so it stores nothing.
//
// The deriver expands journal rows past a high-water mark, in chunks, into payoutd's own tables
// (the key claimed, the transfer, its posting, its three events) in one transaction that also
// advances the mark: stopped anywhere and started again, it derives every row exactly once.

// journalTables are the tables the measurement adds beside payoutd's (prefixed like the raw
// transfer's copies on PostgreSQL).
var journalTables = []string{"journal", "journal_derived"}

// deriveChunk is how many journal rows the deriver expands in one transaction.
const deriveChunk = 2000

// journalDB is a database the journal is written to: its writer's pool, its engine, the prefix
// of the tables (payoutd's or their raw copies) and how to open another connection to it.
type journalDB struct {
	db      *sql.DB
	dialect sqldb.Dialect
	prefix  string
	reopen  func() (*sql.DB, error)
}

// q is query with the prefix before every table name it names as {t}, rebound for the engine.
func (jd journalDB) q(query string, tables ...string) string {
	args := make([]any, len(tables))
	for i, t := range tables {
		args[i] = jd.prefix + t
	}
	return sqldb.Rebind(jd.dialect, fmt.Sprintf(query, args...))
}

// makeJournalTables makes the journal and its mark, empty.
func makeJournalTables(ctx context.Context, jd journalDB) error {
	seq := "INTEGER PRIMARY KEY" // the rowid: the next one is one more than the last, so time-ordered with one writer
	if jd.dialect == sqldb.Postgres {
		seq = "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
	}
	for _, s := range []struct{ query, table string }{
		{`CREATE TABLE %s (seq ` + seq + `, app_id TEXT NOT NULL, transfer_id TEXT NOT NULL, user_id TEXT NOT NULL,
			amount BIGINT NOT NULL, debit_account BIGINT NOT NULL, credit_account BIGINT NOT NULL,
			idempotency_key TEXT NOT NULL, request_hash TEXT NOT NULL, status TEXT NOT NULL, created BIGINT NOT NULL)`, "journal"},
		{`CREATE TABLE %s (seq BIGINT NOT NULL)`, "journal_derived"},
		{`INSERT INTO %s (seq) VALUES (0)`, "journal_derived"},
	} {
		if _, err := jd.db.ExecContext(ctx, jd.q(s.query, s.table)); err != nil {
			return err
		}
	}
	return nil
}

// journalRow is one journal row: one money movement.
type journalRow struct {
	seq                       int64
	appID, transferID, userID string
	amount                    int64 // signed, as the API shows the transfer
	debit, credit             int64
	key, requestHash, status  string
	created                   int64
}

// journalDelta is what a batch moves on one account.
type journalDelta struct{ debits, credits int64 }

// journalWriter appends a batch's transfers to the journal and nets their balances.
type journalWriter struct {
	jd        journalDB
	appID     string
	available map[int64]int64 // each account's available balance as committed, read once
	keys      map[string]bool // every key in the journal
	appended  atomic.Int64    // rows this writer appended
	// transferIDs makes the transfers' ids as payoutd does.
	transferIDs service.TransferIDs
	commitCPU   time.Duration // the writer thread's CPU in commit
}

// newJournalWriter starts a writer on the journal, knowing every key it holds already.
func newJournalWriter(ctx context.Context, jd journalDB, appID string) (*journalWriter, error) {
	jw := &journalWriter{jd: jd, appID: appID, available: map[int64]int64{}, keys: map[string]bool{}}
	rows, err := jd.db.QueryContext(ctx, jd.q(`SELECT idempotency_key FROM %s`, "journal"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return nil, err
		}
		jw.keys[key] = true
	}
	return jw, rows.Err()
}

var errJournalGuard = errors.New("journal: a wallet's guard refused the batch's netted update (the writer's balances were stale)")

// commit decides the batch's transfers against the balances and keys, and appends the ones
// accepted with their wallets' netted updates in one durable transaction. A refused transfer
// (key taken, in the journal or earlier in the batch, or funds short) is left out; it gets
// errRawRefused. The caller's goroutine must keep to its OS thread (commitCPU).
func (jw *journalWriter) commit(ctx context.Context, batch []*rawJob) ([]error, error) {
	cpu := threadCPU()
	defer func() { jw.commitCPU += threadCPU() - cpu }()
	errs := make([]error, len(batch))
	rows := make([]journalRow, 0, len(batch))
	deltas := map[int64]journalDelta{}
	taken := map[string]bool{}
	now := time.Now().UnixMicro()
	for i, j := range batch {
		for _, account := range []int64{j.move.debit, j.move.credit} {
			if err := jw.read(ctx, account); err != nil {
				return errs, err
			}
		}
		d := deltas[j.move.debit]
		if jw.keys[j.key] || taken[j.key] || jw.available[j.move.debit]+d.credits-d.debits < 1 {
			errs[i] = errRawRefused
			continue
		}
		taken[j.key] = true
		d.debits++
		deltas[j.move.debit] = d
		c := deltas[j.move.credit]
		c.credits++
		deltas[j.move.credit] = c
		hash := sha256.Sum256([]byte(j.key))
		rows = append(rows, journalRow{appID: jw.appID, transferID: jw.transferIDs.New(jw.appID), userID: j.move.user,
			amount: j.move.amount, debit: j.move.debit, credit: j.move.credit, key: j.key,
			requestHash: hex.EncodeToString(hash[:]), status: "completed", created: now})
	}
	if len(rows) == 0 {
		return errs, nil
	}
	accounts := slices.Sorted(maps.Keys(deltas)) // in id order, as payoutd locks them
	write := jw.appendSQLite
	if jw.jd.dialect == sqldb.Postgres {
		write = jw.appendPostgres
	}
	if err := write(ctx, rows, accounts, deltas); err != nil {
		return errs, err
	}
	for id, d := range deltas {
		jw.available[id] += d.credits - d.debits
	}
	for key := range taken {
		jw.keys[key] = true
	}
	jw.appended.Add(int64(len(rows)))
	return errs, nil
}

// read reads an account's available balance the first time the writer meets it.
func (jw *journalWriter) read(ctx context.Context, account int64) error {
	if _, ok := jw.available[account]; ok {
		return nil
	}
	var available int64
	err := jw.jd.db.QueryRowContext(ctx, jw.jd.q(`SELECT credits_posted - debits_posted - debits_pending FROM %s WHERE id = ?`,
		"ledger_accounts"), account).Scan(&available)
	jw.available[account] = available
	return err
}

// journalColumns are the journal's columns a writer fills, in journalRow.values's order.
const journalColumns = `app_id, transfer_id, user_id, amount, debit_account, credit_account, idempotency_key, request_hash, status, created`

func (r journalRow) values() []any {
	return []any{r.appID, r.transferID, r.userID, r.amount, r.debit, r.credit, r.key, r.requestHash, r.status, r.created}
}

// appendSQLite writes the rows as multi-row INSERTs and one guarded UPDATE per account, in one
// transaction (BEGIN IMMEDIATE) committed with one flush.
func (jw *journalWriter) appendSQLite(ctx context.Context, rows []journalRow, accounts []int64, deltas map[int64]journalDelta) error {
	tx, err := jw.jd.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := sqldb.InsertRows(sqldb.SQLite, len(rows), 128, jw.jd.q(`INSERT INTO %s (`+journalColumns+`)`, "journal"),
		func(i int) []any { return rows[i].values() }, "", func(query string, args []any) error {
			_, err := tx.ExecContext(ctx, query, args...)
			return err
		}); err != nil {
		return err
	}
	update, err := tx.PrepareContext(ctx, `UPDATE ledger_accounts SET debits_posted = debits_posted + ?, credits_posted = credits_posted + ?
		WHERE id = ? AND credits_posted + ? - debits_posted - ? - debits_pending >= 0`)
	if err != nil {
		return err
	}
	defer update.Close()
	for _, id := range accounts {
		d := deltas[id]
		res, err := update.ExecContext(ctx, d.debits, d.credits, id, d.credits, d.debits)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(err, errJournalGuard)
		}
	}
	return tx.Commit()
}

// appendPostgres writes the rows and the netted, guarded updates as one statement: one round
// trip and one durable commit. A guard that refuses divides by zero at the end, which undoes
// the statement.
func (jw *journalWriter) appendPostgres(ctx context.Context, rows []journalRow, accounts []int64, deltas map[int64]journalDelta) error {
	n := len(rows)
	transfers, users, keys, hashes := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	amounts, debits, credits, created := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, r := range rows {
		transfers[i], users[i], keys[i], hashes[i] = r.transferID, r.userID, r.key, r.requestHash
		amounts[i], debits[i], credits[i], created[i] = r.amount, r.debit, r.credit, r.created
	}
	dp, cp := make([]int64, len(accounts)), make([]int64, len(accounts))
	for i, id := range accounts {
		dp[i], cp[i] = deltas[id].debits, deltas[id].credits
	}
	var one int
	err := jw.jd.db.QueryRowContext(ctx, jw.jd.q(`WITH j AS (
		INSERT INTO %[1]s (`+journalColumns+`)
		SELECT ?, t, u, a, d, c, k, h, 'completed', cr
		FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::bigint[]) AS r (t, u, a, d, c, k, h, cr)
		RETURNING 1
	), d AS (
		SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) AS d (id, dp, cp)
	), locked AS (
		SELECT id FROM %[2]s WHERE id IN (SELECT id FROM d) ORDER BY id FOR NO KEY UPDATE
	), moved AS (
		UPDATE %[2]s a SET debits_posted = a.debits_posted + d.dp, credits_posted = a.credits_posted + d.cp
		FROM d WHERE a.id = d.id AND a.id IN (SELECT id FROM locked)
			AND a.credits_posted + d.cp - a.debits_posted - d.dp - a.debits_pending >= 0
		RETURNING a.id
	)
	SELECT 1 / ((SELECT count(*) FROM moved) = ? AND (SELECT count(*) FROM j) = ?)::int`, "journal", "ledger_accounts"),
		jw.appID, transfers, users, amounts, debits, credits, keys, hashes, created, accounts, dp, cp, len(accounts), n).Scan(&one)
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "22012" { // division_by_zero: a guard refused
		return errJournalGuard
	}
	return err
}

// journalDeriver expands journal rows past the mark into payoutd's tables.
type journalDeriver struct {
	jd    journalDB
	chunk int
	// What it has done since it started: rows derived, and the time and the CPU of the
	// deriving goroutine's thread spent deriving them (its caller keeps to its OS thread).
	derived   atomic.Int64
	wall, cpu time.Duration
}

// derive expands up to chunk rows past the mark, and advances the mark past them, in one
// transaction, and returns how many it derived. Stopped at any point before its commit it
// leaves nothing: the rows are derived again, once, by the next call.
func (dv *journalDeriver) derive(ctx context.Context) (int, error) {
	start, cpu := time.Now(), threadCPU()
	defer func() { dv.wall, dv.cpu = dv.wall+time.Since(start), dv.cpu+threadCPU()-cpu }()
	jd := dv.jd
	tx, err := jd.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	lock := "" // SQLite's write transaction (BEGIN IMMEDIATE) already keeps other derivers out
	if jd.dialect == sqldb.Postgres {
		lock = " FOR UPDATE"
	}
	var mark int64
	if err := tx.QueryRowContext(ctx, jd.q(`SELECT seq FROM %s`+lock, "journal_derived")).Scan(&mark); err != nil {
		return 0, err
	}
	rows, err := readJournal(ctx, tx, jd, mark, dv.chunk)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	run := func(query string, args []any) error {
		_, err := tx.ExecContext(ctx, sqldb.Rebind(jd.dialect, query), args...)
		return err
	}
	for _, t := range []struct {
		table, columns string
		perRow         int
		values         func(r journalRow, i int) []any
	}{
		{"idempotency_keys", "app_id, key, operation, request_hash, resource_id, created", 1, func(r journalRow, _ int) []any {
			return []any{r.appID, r.key, "transfer", r.requestHash, r.transferID, r.created}
		}},
		{"transfers", "id, app_id, user_id, status, type, amount, idempotency_key, tax_exempt, created, updated, first_status", 1,
			func(r journalRow, _ int) []any {
				return []any{r.transferID, r.appID, r.userID, r.status, "balance", r.amount, r.key, true, r.created, r.created, r.status}
			}},
		{"postings", "app_id, transfer_id, debit_account, credit_account, amount, state, type, user_id, source_name, destination_name, created, posted", 1,
			func(r journalRow, _ int) []any {
				return []any{r.appID, r.transferID, r.debit, r.credit, max(r.amount, -r.amount), "posted", "balance", r.userID,
					"Source", "Destination", r.created, r.created}
			}},
		{"events", "id, app_id, type, object_id, data, created", 3, func(r journalRow, i int) []any {
			return []any{uuid.Must(uuid.NewV7()).String(), r.appID, transferEvents[i], r.transferID, rawEventData, r.created}
		}},
	} {
		width := len(t.values(rows[0], 0))
		if err := sqldb.InsertRows(jd.dialect, len(rows)*t.perRow, sqldb.MaxParams/width, fmt.Sprintf(`INSERT INTO %s%s (%s)`, jd.prefix, t.table, t.columns),
			func(i int) []any { return t.values(rows[i/t.perRow], i%t.perRow) }, "", run); err != nil {
			return 0, fmt.Errorf("derive %s: %w", t.table, err)
		}
	}
	res, err := tx.ExecContext(ctx, jd.q(`UPDATE %s SET seq = ? WHERE seq = ?`, "journal_derived"), rows[len(rows)-1].seq, mark)
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return 0, errors.Join(err, errors.New("journal: the mark moved under the deriver"))
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	dv.derived.Add(int64(len(rows)))
	return len(rows), nil
}

// transferEvents are the events a completed balance transfer writes, in order.
var transferEvents = []string{"transfer.created", "transfer.completed", "transfer.updated"}

// readJournal reads up to limit journal rows past the mark, in order.
func readJournal(ctx context.Context, tx *sql.Tx, jd journalDB, mark int64, limit int) ([]journalRow, error) {
	rs, err := tx.QueryContext(ctx, jd.q(`SELECT seq, `+journalColumns+` FROM %s WHERE seq > ? ORDER BY seq LIMIT ?`, "journal"), mark, limit)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var rows []journalRow
	for rs.Next() {
		var r journalRow
		if err := rs.Scan(&r.seq, &r.appID, &r.transferID, &r.userID, &r.amount, &r.debit, &r.credit, &r.key, &r.requestHash,
			&r.status, &r.created); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, rs.Err()
}

// drain derives every row past the mark.
func (dv *journalDeriver) drain(ctx context.Context) error {
	for {
		n, err := dv.derive(ctx)
		if err != nil || n < dv.chunk {
			return err
		}
	}
}

// threadCPU is the user and system CPU time of the calling OS thread (getrusage
// RUSAGE_THREAD, Linux; 0 elsewhere).
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// journalMode is where the deriver runs while the journal is written.
type journalMode string

const (
	journalOnly    journalMode = "journal rows only"
	deriveOnWriter journalMode = "journal + deriver on the writer between batches"
	deriveOwnConn  journalMode = "journal + deriver on its own connection"
)

// journalRun is what one journal measurement did.
type journalRun struct {
	mode      journalMode
	committed int
	rate      float64 // transfers committed per second
	// The writer thread's CPU in its commits (on SQLite all of it: the engine runs in loadgen;
	// on PostgreSQL the client's share) and, on PostgreSQL, its backend's CPU over the load.
	commitCPU, writerBackendCPU time.Duration
	// The deriver during the load: rows derived, and its time, thread CPU and (PostgreSQL, on
	// its own connection) backend CPU deriving them; tail is the rows left underived at the end.
	derived, tail                            int64
	deriveWall, deriveCPU, deriverBackendCPU time.Duration
	// After the load, the rest derived alone on the writer's connection.
	drained             int64
	drainWall, drainCPU time.Duration
}

// journalRuns makes the journal on the database of the raw transfers and measures each mode
// in turn for d with clients, on loadgen's own traffic (between the app and users). Each mode
// ends by deriving what it left, so the next starts with the journal derived.
func journalRuns(ctx context.Context, jd journalDB, w *rawWorld, clients int, d time.Duration) ([]journalRun, error) {
	if err := makeJournalTables(ctx, jd); err != nil {
		return nil, err
	}
	var runs []journalRun
	for _, mode := range []journalMode{journalOnly, deriveOnWriter, deriveOwnConn} {
		run, err := journalLoad(ctx, jd, w, clients, d, mode)
		if err != nil {
			return runs, fmt.Errorf("%s: %w", mode, err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// journalLoad writes the journal from clients in a closed loop for d, with the deriver where
// mode puts it, then derives what is left.
func journalLoad(ctx context.Context, jd journalDB, w *rawWorld, clients int, d time.Duration, mode journalMode) (journalRun, error) {
	run := journalRun{mode: mode}
	writerDB, err := jd.reopen()
	if err != nil {
		return run, err
	}
	defer writerDB.Close()
	wjd := jd
	wjd.db = writerDB
	jw, err := newJournalWriter(ctx, wjd, w.appID)
	if err != nil {
		return run, err
	}
	writerBackend, err := backendCPU(ctx, wjd)
	if err != nil {
		return run, err
	}
	dv := &journalDeriver{jd: wjd, chunk: deriveChunk}
	deriverBackend := func() time.Duration { return 0 }
	var between func() error
	var deriving sync.WaitGroup
	stop := make(chan struct{})
	var deriveErr error
	pending := func() bool { return jw.appended.Load()-dv.derived.Load() >= int64(dv.chunk) }
	switch mode {
	case deriveOnWriter:
		between = func() error {
			for pending() {
				if _, err := dv.derive(ctx); err != nil {
					return err
				}
			}
			return nil
		}
	case deriveOwnConn:
		own := jd
		if own.db, err = jd.reopen(); err != nil {
			return run, err
		}
		defer own.db.Close()
		dv.jd = own
		if deriverBackend, err = backendCPU(ctx, own); err != nil {
			return run, err
		}
		notify := make(chan struct{}, 1)
		between = func() error {
			select {
			case notify <- struct{}{}:
			default:
			}
			return nil
		}
		deriving.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for {
				select {
				case <-stop:
					return
				case <-notify:
				}
				for pending() {
					if _, deriveErr = dv.derive(ctx); deriveErr != nil {
						return
					}
				}
			}
		})
	}
	w0, d0 := writerBackend(), deriverBackend()
	run.committed, err = rawGroupCommitLoad(ctx, clients, d, w.viaApp, func(batch []*rawJob) ([]error, error) {
		return jw.commit(ctx, batch)
	}, between)
	close(stop)
	deriving.Wait()
	run.writerBackendCPU, run.deriverBackendCPU = writerBackend()-w0, deriverBackend()-d0
	if err = errors.Join(err, deriveErr); err != nil {
		return run, err
	}
	run.rate = float64(run.committed) / d.Seconds()
	run.commitCPU = jw.commitCPU
	run.derived, run.deriveWall, run.deriveCPU = dv.derived.Load(), dv.wall, dv.cpu
	run.tail = jw.appended.Load() - run.derived

	drainer := &journalDeriver{jd: wjd, chunk: deriveChunk}
	runtime.LockOSThread()
	err = drainer.drain(ctx)
	runtime.UnlockOSThread()
	run.drained, run.drainWall, run.drainCPU = drainer.derived.Load(), drainer.wall, drainer.cpu
	return run, err
}

// backendCPU returns what reads the CPU time of the PostgreSQL backend serving the pool of
// one connection (from /proc: the cluster on this machine); on SQLite, or where the backend's
// process cannot be read, it reads 0.
func backendCPU(ctx context.Context, jd journalDB) (func() time.Duration, error) {
	zero := func() time.Duration { return 0 }
	if jd.dialect != sqldb.Postgres {
		return zero, nil
	}
	var pid int
	if err := jd.db.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return nil, err
	}
	if _, ok := cpuTime(pid); !ok {
		return zero, nil
	}
	return func() time.Duration {
		t, _ := cpuTime(pid)
		return t
	}, nil
}

// perRow is a duration per row, in milliseconds; 0 for no rows.
func perRow(t time.Duration, rows int64) float64 {
	if rows == 0 {
		return 0
	}
	return float64(t.Microseconds()) / 1000 / float64(rows)
}

// String reports the run in one line.
func (r journalRun) String() string {
	s := fmt.Sprintf("%s: %.0f/s; writer CPU %.3f ms per transfer committing", r.mode, r.rate, perRow(r.commitCPU, int64(r.committed)))
	if r.writerBackendCPU > 0 {
		s += fmt.Sprintf(" (its PostgreSQL backend %.3f ms)", perRow(r.writerBackendCPU, int64(r.committed)))
	}
	if r.mode != journalOnly {
		s += fmt.Sprintf("; derived %d rows during the load (%d left), %.3f ms and %.3f ms CPU per row deriving",
			r.derived, r.tail, perRow(r.deriveWall, r.derived), perRow(r.deriveCPU, r.derived))
		if r.deriverBackendCPU > 0 {
			s += fmt.Sprintf(" (its PostgreSQL backend %.3f ms)", perRow(r.deriverBackendCPU, r.derived))
		}
	}
	return s + fmt.Sprintf("; the rest derived alone afterwards: %d rows, %.0f rows/s, %.3f ms CPU per row",
		r.drained, float64(r.drained)/max(r.drainWall.Seconds(), 1e-9), perRow(r.drainCPU, r.drained))
}
