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
// bound needs), and, with created almost in seq order, about the nearest one to at. The
// bisection is one recursive statement, a row per halving, so that its probes (about 18 for
// 200,000 rows) cost one round trip to PostgreSQL rather than one each.
func (q *Queries) seqBisectionSeek(table string) createdSeek {
	return func(ctx context.Context, appID string, at time.Time, before bool) (int64, bool, error) {
		instant := sqldb.Micros(at)
		// search holds the seqs left to search, [lo, hi], from the app's last, and the last
		// probe on the wanted side (found, none yet). Without before, when the app's last row
		// is older than at (the usual end of a range, today or later) no bound is needed, and
		// finding none (which is always safe) spares the search: it starts empty.
		first, wanted, args := "last.seq", "<", []any{appID}
		if !before {
			first, wanted, args = "CASE WHEN last.created < ? THEN -1 ELSE last.seq END", ">=", []any{instant, appID}
		}
		// Each step probes p, the first of the app's rows with seq in [mid, hi]: created
		// before at, the search goes on after it; otherwise, or with no such row, below mid.
		// The app is a parameter of the probe, not a column of the query, so that PostgreSQL
		// weighs its share of the table and probes a small app on events_app rather than walk
		// the primary key through a big one's rows.
		const mid = "s.lo + (s.hi - s.lo) / 2"
		args = append(args, instant, instant, instant, appID)
		var found sql.NullInt64
		err := q.queryRow(ctx, `WITH RECURSIVE search (lo, hi, found) AS (
				SELECT CAST(0 AS BIGINT), `+first+`, CAST(NULL AS BIGINT)
				FROM (SELECT seq, created FROM `+table+` WHERE app_id = ? ORDER BY seq DESC LIMIT 1) last
				UNION ALL
				SELECT CASE WHEN p.created < ? THEN p.seq + 1 ELSE s.lo END,
					CASE WHEN p.created < ? THEN s.hi ELSE `+mid+` - 1 END,
					CASE WHEN p.created `+wanted+` ? THEN p.seq ELSE s.found END
				FROM search s LEFT JOIN `+table+` p ON p.seq = (SELECT min(seq) FROM `+table+`
					WHERE app_id = ? AND seq >= `+mid+` AND seq <= s.hi)
				WHERE s.lo <= s.hi
			)
			SELECT found FROM search WHERE lo > hi`, args...).Scan(&found)
		if errors.Is(err, sql.ErrNoRows) { // the app has no rows
			return 0, false, nil
		}
		return found.Int64, found.Valid, err
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
