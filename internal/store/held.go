package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// held are the rows of transfers, postings, additions to users' yearly payments, events and
// webhook deliveries that a batch's jobs make, kept back to be written a few hundred per
// statement before the commit instead of several round trips per transfer. Values are taken when
// a row is held, so later changes of the caller's record do not leak into the insert. A statement
// of a job on their tables writes them first (writeHeld); the rows written stay here, counted as
// written.
type held struct {
	transfers, postings, payments, events, deliveries rowSet
	// stored are yearly totals as stored before the batch, read once per user; paid are the sums
	// of the payments rows held, so that a total is found without going through them.
	stored, paid map[taxYear]int64
	// chain are the postings made and settled, entered in their apps' chains before the commit
	// (chain.go).
	chain []chainItem
}

type taxYear struct {
	appID, userID string
	year          int
}

// heldTable is the rows a batch holds of one table, and the statement that inserts them.
type heldTable struct {
	table        table
	rows         *rowSet
	insert, tail string
	returnsKey   bool
}

// tables are the held tables in the order they are written: transfers first, which their
// postings follow, and the events before the webhook deliveries that name them.
func (h *held) tables() []heldTable {
	return []heldTable{
		{transfersTable, &h.transfers, insertTransfer, "", true},
		{postingsTable, &h.postings, insertPostingWithID, "", false},
		{taxYearsTable, &h.payments, insertPayments, addPayments, false},
		{eventsTable, &h.events, insertEvent, "", true},
		{deliveriesTable, &h.deliveries, insertDelivery, "", false},
	}
}

// heldMark is where held rows stood: how many rows each table held, and the chain's items last.
type heldMark [6]int

func (h *held) mark() heldMark {
	var m heldMark
	for i, t := range h.tables() {
		m[i] = len(t.rows.values)
	}
	m[5] = len(h.chain)
	return m
}

// undo drops the rows held after m, of which none was written.
func (h *held) undo(m heldMark) {
	for _, v := range h.payments.values[m[2]:] { // payments are tables()[2]
		k := paymentKey(v)
		if h.paid[k] -= v[3].(int64); h.paid[k] == 0 {
			delete(h.paid, k) // as if none were held
		}
	}
	for i, t := range h.tables() {
		t.rows.truncate(m[i])
	}
	h.chain = h.chain[:m[5]]
}

// unwrittenSince reports whether rows of the tables held after m are not written yet.
func (h *held) unwrittenSince(m heldMark, tables table) bool {
	for i, t := range h.tables() {
		if tables&t.table != 0 && len(t.rows.values) > max(m[i], t.rows.written) {
			return true
		}
	}
	return false
}

// unwritten reports whether rows of the tables are held that were not written yet.
func (h *held) unwritten(tables table) bool {
	for _, t := range h.tables() {
		if tables&t.table != 0 && t.rows.written < len(t.rows.values) {
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

// holdYearlyPayments holds an addition to a user's payments in a year and returns the new total:
// the total as stored before the batch, read once, plus the additions held. The user's row,
// which the caller read in this transaction, is locked on PostgreSQL, so no other writer adds
// meanwhile. No row of the user and year is held before the total is read, so what is read
// never counts a held row written.
func (q *Queries) holdYearlyPayments(ctx context.Context, appID, userID string, year int, amount payouts.Money) (payouts.Money, error) {
	h, k := &q.job.st.held, taxYear{appID, userID, year}
	stored, ok := h.stored[k]
	if !ok {
		// Said to touch no held table: the held additions are added to what it reads below, not
		// written first.
		err := q.queryRowLocked(ctx, readingOthers, `SELECT amount FROM tax_years WHERE app_id = ? AND user_id = ? AND year = ?`, "",
			appID, userID, year).Scan(&stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		if h.stored == nil {
			h.stored, h.paid = map[taxYear]int64{}, map[taxYear]int64{}
		}
		h.stored[k] = stored
	}
	h.payments.add(paymentValues(appID, userID, year, int64(amount)), nil)
	h.paid[k] += int64(amount)
	return payouts.Money(stored + h.paid[k]), nil
}

// paymentKey is the user and year of a held payments row (paymentValues).
func paymentKey(v []any) taxYear { return taxYear{v[0].(string), v[1].(string), v[2].(int)} }

// sumPayments sums the held additions per user and year: one upsert cannot change a row twice.
func sumPayments(rows *rowSet) *rowSet {
	sums := map[taxYear]int{}
	var out rowSet
	for _, v := range rows.values {
		k := paymentKey(v)
		if i, ok := sums[k]; ok {
			out.values[i][3] = out.values[i][3].(int64) + v[3].(int64)
			continue
		}
		sums[k] = len(out.values)
		out.add(slices.Clone(v), nil)
	}
	return &out
}

// insertOrHold inserts rows into the table t, or, in a write transaction, adds them to the held
// ones of the table (heldRows), whose keys (returnsKey) are set when they are written.
func (q *Queries) insertOrHold(ctx context.Context, t table, insert string, returnsKey bool, rows rowSet, heldRows func(*held) *rowSet) error {
	if q.job == nil {
		return q.insertRowSet(ctx, t, insert, "", returnsKey, &rows)
	}
	h := heldRows(&q.job.st.held)
	for i, v := range rows.values {
		h.add(v, rows.setKey[i])
	}
	return nil
}

// writeHeld writes the batch's held rows of tables not written yet, before a statement of the
// running job that touches them: the rows of the jobs ended before it, and its own, which makes
// it a job that changed rows (sqldb.Batch.Changed). The rows of other tables stay held, to be
// written with the batch's next ones.
func (q *Queries) writeHeld(ctx context.Context, tables table) error {
	h := &q.job.st.held
	if h.unwrittenSince(q.job.start, tables) {
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
			t.rows.written = len(t.rows.values)
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
		rows := t.rows.unwritten()
		if t.table == taxYearsTable {
			rows = sumPayments(rows) // one row per user and year: the additions summed
		}
		s, err := q.insertStmts(t.insert, t.tail, t.returnsKey, rows)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	}
	return stmts, nil
}
