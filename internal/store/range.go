package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// scope narrows l to the app's rows created in [r.CreatedFrom, r.CreatedTo): the part of a
// filter the (app_id, created) index serves, which a summary samples.
func (l *listQuery) scope(appID string, r payouts.Range) {
	l.filter("app_id = ?", appID)
	if !r.CreatedFrom.IsZero() {
		l.filter("created >= ?", sqldb.Micros(r.CreatedFrom))
	}
	if !r.CreatedTo.IsZero() {
		l.filter("created < ?", sqldb.Micros(r.CreatedTo))
	}
}

// amounts narrows l to rows whose unsigned amount lies in [r.AmountMin, r.AmountMax]. A
// transfer's amount is signed, so each bound is a pair.
func (l *listQuery) amounts(r payouts.Range) {
	if r.AmountMin != 0 {
		l.filter("(amount >= ? OR amount <= ?)", int64(r.AmountMin), -int64(r.AmountMin))
	}
	if r.AmountMax != 0 {
		l.filter("amount BETWEEN ? AND ?", -int64(r.AmountMax), int64(r.AmountMax))
	}
}

// transferMatch narrows match to the transfers f matches, its creation range aside.
func transferMatch(match *listQuery, f payouts.TransferFilter) {
	if f.UserID != "" {
		match.filter("user_id = ?", f.UserID)
	}
	if f.Type != "" {
		match.filter("type = ?", f.Type)
	}
	if f.Status != "" {
		match.filter("status = ?", f.Status)
	}
	match.amounts(f.Range)
}

// transactionMatch narrows match to the postings f matches, its creation range aside.
func transactionMatch(match *listQuery, f payouts.TransactionFilter) {
	if f.UserID != "" {
		match.filter("user_id = ?", f.UserID)
	}
	if f.Type != "" {
		match.filter("type = ?", f.Type)
	}
	if f.Status != "" {
		match.filter("state = ?", f.Status)
	}
	match.amounts(f.Range)
}

// and appends the conditions of m to l.
func (l *listQuery) and(m listQuery) {
	l.where = append(l.where, m.where...)
	l.args = append(l.args, m.args...)
}

// createdSlack is longer than any write transaction stays open: a row created (by the clock)
// more than this before another got the smaller keyset value. Lists lean on it to turn a
// creation range into a range of the keyset column.
const createdSlack = time.Hour

// keysetOfCreated bounds a list's keyset column (key, "seq" or "id") to the rows a creation range
// can hold, found by two seeks on the (app_id, created) index, so that a page of an old month
// reads that month rather than every row since. The creation bounds themselves stay as
// conditions that no index serves (+created), which keeps the planner on the keyset order.
// It reports false when the range holds no rows.
func (q *Queries) keysetOfCreated(ctx context.Context, l *listQuery, table, key, appID string, r payouts.Range) (bool, error) {
	seek := func(cond, order string, at time.Time) (int64, bool, error) {
		var v int64
		err := q.queryRow(ctx, `SELECT `+key+` FROM `+table+` WHERE app_id = ? AND created `+cond+` ?
			ORDER BY created `+order+` LIMIT 1`, appID, sqldb.Micros(at)).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		return v, err == nil, err
	}
	if !r.CreatedFrom.IsZero() {
		lo, ok, err := seek(">=", "ASC", r.CreatedFrom.Add(-createdSlack))
		if !ok {
			return false, err
		}
		l.filter(key+" >= ?", lo)
		l.filter("+created >= ?", sqldb.Micros(r.CreatedFrom))
	}
	if !r.CreatedTo.IsZero() {
		hi, ok, err := seek("<", "DESC", r.CreatedTo.Add(createdSlack))
		if !ok {
			return false, err
		}
		l.filter(key+" <= ?", hi)
		l.filter("+created < ?", sqldb.Micros(r.CreatedTo))
	}
	return true, nil
}

// listRange narrows the list l to the app's rows that match and lie in the creation range r. It
// reports false when the range holds no rows.
func (q *Queries) listRange(ctx context.Context, l *listQuery, table, appID string, r payouts.Range, match listQuery) (bool, error) {
	l.filter("app_id = ?", appID)
	l.and(match)
	return q.keysetOfCreated(ctx, l, table, l.order, appID, r)
}
