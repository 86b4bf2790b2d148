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
// more than this before another got the smaller keyset value. Lists lean on it, and on it alone
// (created is not sorted by the keyset column), to turn a creation range into a range of the
// keyset column: every row created before from - createdSlack has a smaller key than every row
// created at or after from, and every row created at or after to + createdSlack a larger key
// than every row created before to.
const createdSlack = time.Hour

// createdSeek finds the keyset value of one of the app's rows on one side of the instant at:
// with before, a row created before at, as late a one as it finds cheaply; without, a row
// created at or after at, as early a one as it finds. ok is false when it finds none.
type createdSeek func(ctx context.Context, appID string, at time.Time, before bool) (key int64, ok bool, err error)

// createdIndexSeek is the seek of a table with an (app_id, created) index (transfers, postings):
// one index seek, the nearest row to at on its side.
func (q *Queries) createdIndexSeek(table, key string) createdSeek {
	return func(ctx context.Context, appID string, at time.Time, before bool) (int64, bool, error) {
		cond, order := ">=", "ASC"
		if before {
			cond, order = "<", "DESC"
		}
		var v int64
		err := q.queryRow(ctx, `SELECT `+key+` FROM `+table+` WHERE app_id = ? AND created `+cond+` ?
			ORDER BY created `+order+` LIMIT 1`, appID, sqldb.Micros(at)).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		return v, err == nil, err
	}
}

// seqBisectionSeek is the seek of a table without a created index, keyed by seq on an
// (app_id, seq) index: events, the hottest table (several rows per transfer), where a created
// index would cost every transfer for the sake of a list. It bisects the app's seqs, reading
// created of single rows. created is not sorted by seq, so a probe says only which way to go;
// the answer is the last probe on the wanted side, a row there all the same (which is all a
// bound needs), and, with created almost in seq order, about the nearest one to at.
func (q *Queries) seqBisectionSeek(table string) createdSeek {
	return func(ctx context.Context, appID string, at time.Time, before bool) (int64, bool, error) {
		// probe reads the first of the app's rows with seq in [from, to].
		probe := func(from, to int64) (seq, created int64, ok bool, err error) {
			err = q.queryRow(ctx, `SELECT seq, created FROM `+table+` WHERE app_id = ? AND seq >= ? AND seq <= ?
				ORDER BY seq LIMIT 1`, appID, from, to).Scan(&seq, &created)
			if errors.Is(err, sql.ErrNoRows) {
				return 0, 0, false, nil
			}
			return seq, created, err == nil, err
		}
		var lo, hi, found, last int64 // the seqs left to search, [lo, hi], from the app's last
		err := q.queryRow(ctx, `SELECT seq, created FROM `+table+` WHERE app_id = ? ORDER BY seq DESC LIMIT 1`, appID).Scan(&hi, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		} else if err != nil {
			return 0, false, err
		}
		ok, instant := false, sqldb.Micros(at)
		if !before && last < instant {
			// The usual end of a range, today or later: no bound is needed, and finding none
			// (which is always safe) spares the search.
			return 0, false, nil
		}
		for lo <= hi {
			mid := lo + (hi-lo)/2
			seq, created, some, err := probe(mid, hi)
			if err != nil {
				return 0, false, err
			}
			if !some { // no row in [mid, hi]
				hi = mid - 1
				continue
			}
			if (created < instant) == before {
				found, ok = seq, true
			}
			if created < instant {
				lo = seq + 1
			} else {
				hi = mid - 1
			}
		}
		return found, ok, nil
	}
}

// keysetOfCreated bounds a list's keyset column (key, "seq" or "id") to the rows a creation range
// can hold, found by seek, so that a page of an old month reads that month rather than every
// row since. The creation bounds themselves stay as conditions that no index serves (+created),
// which keeps the list exact and the planner on the keyset order.
func keysetOfCreated(ctx context.Context, l *listQuery, key, appID string, r payouts.Range, seek createdSeek) error {
	if !r.CreatedFrom.IsZero() {
		lo, ok, err := seek(ctx, appID, r.CreatedFrom.Add(-createdSlack), true)
		if err != nil {
			return err
		}
		if ok {
			l.filter(key+" > ?", lo)
		}
		l.filter("+created >= ?", sqldb.Micros(r.CreatedFrom))
	}
	if !r.CreatedTo.IsZero() {
		hi, ok, err := seek(ctx, appID, r.CreatedTo.Add(createdSlack), false)
		if err != nil {
			return err
		}
		if ok {
			l.filter(key+" < ?", hi)
		}
		l.filter("+created < ?", sqldb.Micros(r.CreatedTo))
	}
	return nil
}

// listRange narrows the list l to the app's rows that match and lie in the creation range r,
// whose keyset bounds seek finds.
func listRange(ctx context.Context, l *listQuery, appID string, r payouts.Range, match listQuery, seek createdSeek) error {
	l.filter("app_id = ?", appID)
	l.and(match)
	return keysetOfCreated(ctx, l, l.order, appID, r, seek)
}
