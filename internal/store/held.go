package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// held are the rows of transfers, postings, additions to users' yearly payments, events and
// webhook deliveries that HoldInserts or a batch keeps back, to write them a few hundred per
// statement instead of several round trips per transfer. Values are taken when a row is held,
// so later changes of the caller's record do not leak into the insert.
type held struct {
	transfers, postings, payments, events, deliveries rowSet
	writes                                            int // how many times held rows were written
	// inHoldInserts is set inside HoldInserts, whose nested calls write nothing themselves.
	inHoldInserts bool
	// storedPayments are yearly totals as read from the database since held rows were last
	// written, so that each user's is read once; heldPayments are the sums of the payments rows
	// held, so that a total is found without going through them.
	storedPayments, heldPayments map[taxYear]int64
}

type taxYear struct {
	appID, userID string
	year          int
}

func (h *held) tables() []*rowSet {
	return []*rowSet{&h.transfers, &h.postings, &h.payments, &h.events, &h.deliveries}
}

// HoldInserts runs fn with the inserts of transfers, postings and yearly payments held back, and
// writes them when fn ends, so that a batch's chunk makes them in a few statements. A savepoint
// rolled back drops what it held; a statement on those tables inside fn writes what is held
// first.
func (t txQueries) HoldInserts(ctx context.Context, fn func() error) error {
	q := t.Queries
	if q.held == nil {
		q.held = &held{}
		defer func() { q.held = nil }()
	}
	if q.held.inHoldInserts {
		return fn()
	}
	q.held.inHoldInserts = true
	err := fn()
	q.held.inHoldInserts = false
	if err == nil {
		err = q.writeHeld(ctx)
	}
	if q.failed != nil {
		err = errors.Join(q.failed, err)
	}
	return err
}

// holdForBatch holds the transfers, events and yearly payments of a job of a batch
// with those of the batch's other jobs, written before the commit in a few statements for all.
// A job rolled back drops what it held. One that wrote the rows held before it (a statement on
// their tables) and was then rolled back took them with it: the batch fails, and its jobs run
// again alone.
func (q *Queries) holdForBatch() {
	st := q.batchState()
	if st.held == nil {
		st.held = &held{}
	}
	q.held = st.held
	undo := st.held.mark()
	q.batch.OnJobEnd(func(ok bool) {
		if ok {
			return
		}
		if err := undo(); err != nil && st.lost == nil {
			st.lost = err
		}
		clear(st.held.storedPayments) // read, and on PostgreSQL locked, again
	})
}

// runInBatch runs stmts in the batch's transaction outside any job: on PostgreSQL in one round
// trip (a pipeline), on SQLite one after another.
func (q *Queries) runInBatch(ctx context.Context, stmts []sqldb.Stmt) error {
	if q.dialect == sqldb.Postgres {
		return q.batch.Pipeline(ctx, stmts)
	}
	tx := q.batch.Tx()
	return (&Queries{conn: tx, db: q.db, tx: tx, dialect: q.dialect}).run(ctx, touchingNone, stmts)
}

// batchState is what the store keeps for a batch of jobs (sqldb.Batch.State): its netted ledger
// deltas and its held rows, both written before the commit.
type batchState struct {
	netting *netting
	held    *held
	reads   *batchReads // app rows and webhook endpoints read once per batch
	// lastPostingID is the id of the last posting numbered in the transaction (SQLite,
	// nextPostingID); 0 until the first. postingIDs are ids the transaction took from the
	// sequence and has not yet given (PostgreSQL), reserved the last time.
	lastPostingID int64
	postingIDs    []int64
	reserved      int
	keys          *keysAhead // idempotency keys claimed for the batch's jobs
	lost          error      // held rows written inside a job that was rolled back
}

func (q *Queries) batchState() *batchState {
	st, _ := q.batch.State.(*batchState)
	if st != nil {
		return st
	}
	st = &batchState{}
	q.batch.State = st
	q.batch.BeforeCommit(func(ctx context.Context, _ *sql.Tx) error {
		if st.lost != nil {
			return fmt.Errorf("%w: %w", st.lost, sqldb.ErrRetry)
		}
		stmts := releaseKeysAhead(st.keys)
		if st.held != nil {
			held, err := q.heldStmts(st.held)
			if err != nil {
				return err
			}
			stmts = append(stmts, held...)
		}
		if st.netting != nil {
			stmts = append(stmts, st.netting.stmts(q.dialect)...)
		}
		// On PostgreSQL the whole batch's writes are one round trip.
		err := q.runInBatch(ctx, stmts)
		if errors.Is(err, service.ErrOverdraft) {
			return fmt.Errorf("store: a concurrent write overdrew an account of the batch: %w", sqldb.ErrRetry)
		}
		return err
	})
	return st
}

// mark returns what drops the rows held after it, for a savepoint that is rolled back. Rows held
// before it but written after it were rolled back with the savepoint, and cannot be written
// again: that is an error, which must fail the transaction.
func (h *held) mark() (undo func() error) {
	if h == nil {
		return func() error { return nil }
	}
	var lens []int
	for _, t := range h.tables() {
		lens = append(lens, len(t.values))
	}
	writes, paid := h.writes, len(h.payments.values)
	return func() error {
		if h.writes != writes {
			return errors.New("store: held rows were written in a savepoint that was rolled back")
		}
		for _, v := range h.payments.values[paid:] {
			h.heldPayments[paymentKey(v)] -= v[3].(int64)
		}
		for i, t := range h.tables() {
			t.truncate(lens[i])
		}
		return nil
	}
}

// holdYearlyPayments holds an addition to a user's payments in a year and returns the new total:
// the total as stored, read once, plus the additions held. The user's row, which the caller
// read in this transaction, is locked on PostgreSQL, so no other writer adds meanwhile.
func (q *Queries) holdYearlyPayments(ctx context.Context, appID, userID string, year int, amount payouts.Money) (payouts.Money, error) {
	h, k := q.held, taxYear{appID, userID, year}
	stored, ok := h.storedPayments[k]
	if !ok {
		// Said to touch no held table: the held additions are added to what it reads below, not
		// written first.
		err := q.queryRowTouching(ctx, touchingNone, `SELECT amount FROM tax_years WHERE app_id = ? AND user_id = ? AND year = ?`+q.lockRow(""),
			appID, userID, year).Scan(&stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		if h.storedPayments == nil {
			h.storedPayments = map[taxYear]int64{}
		}
		h.storedPayments[k] = stored
	}
	h.payments.add(paymentValues(appID, userID, year, int64(amount)), nil)
	if h.heldPayments == nil {
		h.heldPayments = map[taxYear]int64{}
	}
	h.heldPayments[k] += int64(amount)
	return payouts.Money(stored + h.heldPayments[k]), nil
}

// paymentKey is the user and year of a held payments row (paymentValues).
func paymentKey(v []any) taxYear { return taxYear{v[0].(string), v[1].(string), v[2].(int)} }

// sumPayments sums the held additions per user and year: one upsert cannot change a row twice.
func sumPayments(rows rowSet) *rowSet {
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

// insertOrHold inserts rows into the table t, or, while rows are held, adds them to the held
// ones of the table (heldRows), whose keys (returnsKey) are set when they are written.
func (q *Queries) insertOrHold(ctx context.Context, t table, insert string, returnsKey bool, rows rowSet, heldRows func(*held) *rowSet) error {
	if q.held == nil {
		return q.insertRowSet(ctx, t, insert, "", returnsKey, &rows)
	}
	h := heldRows(q.held)
	for i, v := range rows.values {
		h.add(v, rows.setKey[i])
	}
	return nil
}

// writeHeld writes the held rows: transfers first, which their postings follow.
func (q *Queries) writeHeld(ctx context.Context) error {
	h := q.held
	q.held = nil // the inserts below must run, not be held again
	defer func() { q.held = h }()
	stmts, err := q.heldStmts(h)
	if err != nil {
		return err
	}
	if err := q.run(ctx, writing(heldTables), stmts); err != nil {
		return err
	}
	*h = held{writes: h.writes + 1, inHoldInserts: h.inHoldInserts}
	return nil
}

// heldStmts are the statements that write the rows h holds.
func (q *Queries) heldStmts(h *held) ([]sqldb.Stmt, error) {
	var stmts []sqldb.Stmt
	for _, w := range []struct {
		table        table
		insert, tail string
		returnsKey   bool
		rows         *rowSet
	}{
		{transfersTable, insertTransfer, "", true, &h.transfers},
		{postingsTable, insertPostingWithID, "", false, &h.postings},
		{taxYearsTable, insertPayments, addPayments, false, sumPayments(h.payments)},
		{eventsTable, insertEvent, "", true, &h.events},
		{deliveriesTable, insertDelivery, "", false, &h.deliveries}, // after the events they name
	} {
		s, err := q.insertStmts(w.insert, w.tail, w.returnsKey, w.rows)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	}
	return stmts, nil
}
