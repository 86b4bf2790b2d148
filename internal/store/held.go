package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// held are the rows of transfers (each with its first history row) and postings that
// HoldInserts keeps back, to write them a few hundred per statement instead of three round
// trips per transfer. Values are taken when a row is held, so later changes of the caller's
// record do not leak into the insert.
type held struct {
	transfers, history, postings heldRows
	writes                       int // how many times held rows were written
}

// heldRows are rows of one table; setID[i], when set, receives the key the database gave row i.
type heldRows struct {
	values [][]any
	setID  []func(int64)
}

func (h *heldRows) add(values []any, setID func(int64)) {
	h.values = append(h.values, values)
	h.setID = append(h.setID, setID)
}

func (h *heldRows) truncate(n int) { h.values, h.setID = h.values[:n], h.setID[:n] }

// heldTables are the tables whose rows may be held: a statement naming one writes the held rows
// first, so that no statement ever misses them.
var heldTables = []string{"transfers", "transfer_events", "postings"}

// HoldInserts runs fn with the inserts of transfers and postings held back, and writes them when
// fn ends, so that a batch's chunk makes them in a few statements. A savepoint rolled back drops
// what it held; a statement on those tables inside fn writes what is held first.
func (q *Queries) HoldInserts(ctx context.Context, fn func() error) error {
	if q.held != nil {
		return fn()
	}
	q.held, q.heldErr = &held{}, nil
	err := fn()
	if err == nil {
		err = q.writeHeld(ctx)
	}
	if q.heldErr != nil {
		err = errors.Join(q.heldErr, err)
	}
	q.held, q.heldErr = nil, nil
	return err
}

// mark returns what drops the rows held after it, for a savepoint that is rolled back. Rows held
// before it but written after it were rolled back with the savepoint, and cannot be written
// again: that is an error, which must fail the transaction.
func (h *held) mark() (undo func() error) {
	if h == nil {
		return func() error { return nil }
	}
	t, e, p, writes := len(h.transfers.values), len(h.history.values), len(h.postings.values), h.writes
	return func() error {
		if h.writes != writes {
			return errors.New("store: held rows were written in a savepoint that was rolled back")
		}
		h.transfers.truncate(t)
		h.history.truncate(e)
		h.postings.truncate(p)
		return nil
	}
}

// beforeStatement writes the held rows before a statement that names their tables.
func (q *Queries) beforeStatement(ctx context.Context, query string) error {
	if q.held == nil || !slices.ContainsFunc(heldTables, func(t string) bool { return strings.Contains(query, t) }) {
		return nil
	}
	return q.writeHeld(ctx)
}

// writeHeld writes the held rows: transfers first, which their history rows and postings follow.
func (q *Queries) writeHeld(ctx context.Context) error {
	h := q.held
	q.held = nil // the inserts below must run, not be held again
	defer func() { q.held = h }()
	for _, w := range []struct {
		insert, returning string
		rows              *heldRows
	}{
		{insertTransfer, "RETURNING seq", &h.transfers},
		{insertHistory, "", &h.history},
		{insertPosting, "RETURNING id", &h.postings},
	} {
		if err := q.insertHeld(ctx, w.insert, w.returning, w.rows); err != nil {
			return err
		}
	}
	*h = held{writes: h.writes + 1}
	return nil
}

// insertHeld inserts rows, a few hundred per statement, and hands each row its key. The keys of
// one statement's rows are drawn in the order of its VALUES on both engines, but RETURNING lists
// them in no promised order: they are sorted.
func (q *Queries) insertHeld(ctx context.Context, insert, returning string, rows *heldRows) error {
	for start := 0; start < len(rows.values); start += itemsPerInsert {
		end := min(start+itemsPerInsert, len(rows.values))
		var keys []int64
		err := q.insertRows(ctx, insert, end-start, func(i int) []any { return rows.values[start+i] },
			returning, func(r *sql.Rows) error {
				var key int64
				err := r.Scan(&key)
				keys = append(keys, key)
				return err
			})
		if err != nil {
			return err
		}
		if returning == "" {
			continue
		}
		if len(keys) != end-start {
			return fmt.Errorf("insert returned %d keys for %d rows", len(keys), end-start)
		}
		slices.Sort(keys)
		for i, set := range rows.setID[start:end] {
			if set != nil {
				set(keys[i])
			}
		}
	}
	return nil
}
