package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// held are the rows of transfers, postings, additions to users' yearly payments, events and
// webhook deliveries that a batch's jobs make, and the postings they enter in their apps'
// chains, kept back as typed rows to be written a few hundred per statement before the commit
// instead of several round trips per transfer. Of each table it keeps the rows of the jobs that
// ended well and the running job's plan, its rows since it started: a job that fails drops its
// plan, of which nothing was written (endJob). A statement of a job on their tables writes them
// first (writeHeld); the rows written stay, counted as written.
type held struct {
	transfers  heldRows[heldTransfer]
	postings   heldRows[ledger.Posting]
	payments   heldRows[yearlyPayment]
	events     heldRows[heldEvent]
	deliveries heldRows[service.WebhookDeliveryRecord]
	chain      heldRows[chainItem] // entered in the chains before the commit (chain.go), never before
	// stored are yearly totals as stored before the batch, read once per user; paid are the sums
	// of the payments rows held, so that a total is found without going through them.
	stored, paid map[taxYear]int64
}

// heldRows are the rows a batch holds of one table.
type heldRows[T any] struct {
	kept    []T // of the jobs that ended well
	written int // how many of kept are in the database
	job     []T // the running job's plan
}

func (r *heldRows[T]) hold(row T) { r.job = append(r.job, row) }

// endJob keeps the running job's plan with the batch's rows when ok, and drops it otherwise.
func (r *heldRows[T]) endJob(ok bool) {
	if ok {
		r.kept = append(r.kept, r.job...)
	}
	clear(r.job)
	r.job = r.job[:0]
}

// unwritten are the rows not written yet: the kept ones, then the job's.
func (r *heldRows[T]) unwritten() []T {
	return append(r.kept[r.written:len(r.kept):len(r.kept)], r.job...)
}

func (r *heldRows[T]) jobHolds() bool       { return len(r.job) > 0 }
func (r *heldRows[T]) holdsUnwritten() bool { return r.written < len(r.kept) || len(r.job) > 0 }

// wrote counts the unwritten rows as written. The job's go with the kept ones: written, they
// are its change of rows, which fails the whole batch if the job fails (sqldb.Batch.Changed).
func (r *heldRows[T]) wrote() {
	r.endJob(true)
	r.written = len(r.kept)
}

type taxYear struct {
	appID, userID string
	year          int
}

// heldTable is a table whose rows a batch holds, and the statements that write those unwritten.
type heldTable struct {
	table table
	rows  interface {
		jobHolds() bool
		holdsUnwritten() bool
		wrote()
		endJob(ok bool)
	}
	stmts func(sqldb.Dialect) ([]sqldb.Stmt, error)
}

// tables are the held tables in the order they are written: transfers first, which their
// postings follow, and the events before the webhook deliveries that name them.
func (h *held) tables() []heldTable {
	return []heldTable{
		{transfersTable, &h.transfers, func(d sqldb.Dialect) ([]sqldb.Stmt, error) {
			return transferWriter.stmts(d, h.transfers.unwritten())
		}},
		{postingsTable, &h.postings, func(d sqldb.Dialect) ([]sqldb.Stmt, error) {
			return postingWriter.stmts(d, h.postings.unwritten())
		}},
		{taxYearsTable, &h.payments, func(d sqldb.Dialect) ([]sqldb.Stmt, error) {
			// one row per user and year: one upsert cannot change a row twice
			return paymentWriter.stmts(d, sumPayments(h.payments.unwritten()))
		}},
		{eventsTable, &h.events, func(d sqldb.Dialect) ([]sqldb.Stmt, error) {
			return eventWriter.stmts(d, h.events.unwritten())
		}},
		{deliveriesTable, &h.deliveries, func(d sqldb.Dialect) ([]sqldb.Stmt, error) {
			return deliveryWriter.stmts(d, h.deliveries.unwritten())
		}},
	}
}

// endJob keeps the running job's plan when ok, and drops it, none of it written, otherwise.
func (h *held) endJob(ok bool) {
	if !ok {
		for _, p := range h.payments.job {
			if h.paid[p.key()] -= p.Amount; h.paid[p.key()] == 0 {
				delete(h.paid, p.key()) // as if none were held
			}
		}
	}
	for _, t := range h.tables() {
		t.rows.endJob(ok)
	}
	h.chain.endJob(ok)
}

// jobHolds reports whether the running job holds unwritten rows of the tables.
func (h *held) jobHolds(tables table) bool {
	for _, t := range h.tables() {
		if tables&t.table != 0 && t.rows.jobHolds() {
			return true
		}
	}
	return false
}

// unwritten reports whether rows of the tables are held that were not written yet.
func (h *held) unwritten(tables table) bool {
	for _, t := range h.tables() {
		if tables&t.table != 0 && t.rows.holdsUnwritten() {
			return true
		}
	}
	return false
}

// mustBeWritten are the held tables whose rows a statement touching tables needs written: those
// it touches, and the events named by the webhook deliveries it touches (their foreign key).
func mustBeWritten(tables table) table {
	tables &= heldTables
	if tables&deliveriesTable != 0 {
		tables |= eventsTable
	}
	return tables
}

// runInBatch runs stmts in the batch's transaction outside any job: on PostgreSQL in one round
// trip (a pipeline), on SQLite one after another.
func (q *Queries) runInBatch(ctx context.Context, stmts []sqldb.Stmt) error {
	if q.dialect == sqldb.Postgres {
		return q.batch.Pipeline(ctx, stmts)
	}
	tx := q.batch.Tx()
	return (&Queries{conn: tx, db: q.db, tx: tx, dialect: q.dialect}).run(ctx, writingOthers, stmts)
}

// yearlyTotal is a user's payments in a year as the batch has them: the total as stored before
// the batch, read once, plus the additions held. The user's row, which the caller read in this
// transaction, is locked on PostgreSQL, so no other writer adds meanwhile. No row of the user
// and year is held before the total is read, so what is read never counts a held row written.
func (q *Queries) yearlyTotal(ctx context.Context, k taxYear) (payouts.Money, error) {
	h := &q.job.st.held
	stored, ok := h.stored[k]
	if !ok {
		// Said to touch no held table: the held additions are added to what it reads below, not
		// written first.
		err := q.queryRowLocked(ctx, readingOthers, `SELECT amount FROM tax_years WHERE app_id = ? AND user_id = ? AND year = ?`, "",
			k.appID, k.userID, k.year).Scan(&stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		if h.stored == nil {
			h.stored, h.paid = map[taxYear]int64{}, map[taxYear]int64{}
		}
		h.stored[k] = stored
	}
	return payouts.Money(stored + h.paid[k]), nil
}

// holdYearlyPayment holds an addition to a user's payments in a year, after reading the total
// it adds to (yearlyTotal).
func (q *Queries) holdYearlyPayment(ctx context.Context, p yearlyPayment) error {
	if _, err := q.yearlyTotal(ctx, p.key()); err != nil {
		return err
	}
	h := &q.job.st.held
	h.payments.hold(p)
	h.paid[p.key()] += p.Amount
	q.wrote(paymentWriter.insert)
	return nil
}

// sumPayments sums the additions per user and year, in the order each was first added.
func sumPayments(rows []yearlyPayment) []yearlyPayment {
	at := map[taxYear]int{}
	var out []yearlyPayment
	for _, p := range rows {
		if i, ok := at[p.key()]; ok {
			out[i].Amount += p.Amount
			continue
		}
		at[p.key()] = len(out)
		out = append(out, p)
	}
	return out
}

// writeHeld writes the batch's held rows of tables not written yet, before a statement of the
// running job that touches them: the rows of the jobs ended before it, and its own, which makes
// it a job that changed rows (sqldb.Batch.Changed). The rows of other tables stay held, to be
// written with the batch's next ones.
func (q *Queries) writeHeld(ctx context.Context, tables table) error {
	h := &q.job.st.held
	if h.jobHolds(tables) {
		q.batch.Changed()
	}
	stmts, err := q.heldStmts(h, tables)
	if err != nil {
		return err
	}
	// The batch's writes, not the job's statements: nothing is done before them.
	if err := q.runInBatch(ctx, stmts); err != nil {
		return err
	}
	for _, t := range h.tables() {
		if tables&t.table != 0 {
			t.rows.wrote()
		}
	}
	return nil
}

// heldStmts are the statements that write the rows h holds of tables and has not written, in
// the order of h.tables().
func (q *Queries) heldStmts(h *held, tables table) ([]sqldb.Stmt, error) {
	var stmts []sqldb.Stmt
	for _, t := range h.tables() {
		if tables&t.table == 0 {
			continue
		}
		s, err := t.stmts(q.dialect)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	}
	return stmts, nil
}
