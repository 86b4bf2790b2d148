package store

import (
	"context"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// DailyVolumes sums the app's transfers per day and type: bounds holds the first instant of each
// day and, last, the end of the last day, so a day is as long as its zone makes it (23 or 25
// hours when clocks change). It counts payouts that are on the rail or completed, deposits, and
// completed balance transfers from the app to users (not money users sent back, nor payout
// links' reservations until claimed). It returns one volume per day, dated in the bounds' zone.
func (q *Queries) DailyVolumes(ctx context.Context, appID string, bounds []time.Time) (_ []payouts.DailyVolume, err error) {
	defer wrap(&err, "daily volumes")
	out := make([]payouts.DailyVolume, max(len(bounds)-1, 0))
	if len(out) == 0 {
		return out, nil
	}
	// The days are a table of their bounds, so both engines group by the zone's days without
	// knowing the zone; CAST gives PostgreSQL the parameters' type.
	days := make([]string, len(out))
	args := make([]any, 0, 2*len(out)+6)
	for i := range out {
		out[i].Date = bounds[i].Format(time.DateOnly)
		days[i] = "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))"
		args = append(args, i, sqldb.Micros(bounds[i]), sqldb.Micros(bounds[i+1]))
	}
	args = append(args, appID, sqldb.Micros(bounds[0]), sqldb.Micros(bounds[len(bounds)-1]),
		payouts.TransferFailed, payouts.TransferFlagged, payouts.TransferBalance, payouts.TransferCompleted)
	rows, err := q.query(ctx, `WITH days(n, lo, hi) AS (VALUES `+strings.Join(days, ", ")+`)
		SELECT days.n, t.type, COUNT(*), SUM(CASE WHEN t.amount < 0 THEN -t.amount ELSE t.amount END)
		FROM transfers t JOIN days ON t.created >= days.lo AND t.created < days.hi
		WHERE t.app_id = ? AND t.created >= ? AND t.created < ? AND t.status <> ? AND t.status <> ?
		AND NOT (t.type = ? AND (t.amount > 0 OR t.status <> ?))
		GROUP BY days.n, t.type`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n, count, sum int64
		var typ payouts.TransferType
		if err := rows.Scan(&n, &typ, &count, &sum); err != nil {
			return nil, err
		}
		v := &out[n]
		switch typ {
		case payouts.TransferPayout:
			v.Payouts += payouts.Money(sum)
			v.PayoutCount += int(count)
		case payouts.TransferRefill:
			v.Deposits += payouts.Money(sum)
		case payouts.TransferBalance:
			v.ToUsers += payouts.Money(sum)
		}
	}
	return out, rows.Err()
}

// CountTransfers counts the app's transfers that match f (status and type) created from since on.
func (q *Queries) CountTransfers(ctx context.Context, appID string, f payouts.TransferFilter, since time.Time) (_ int, err error) {
	defer wrap(&err, "count transfers")
	var n int
	err = q.queryRow(ctx, `SELECT COUNT(*) FROM transfers WHERE app_id = ? AND status = ? AND (? = '' OR type = ?)
		AND created >= ?`, appID, f.Status, f.Type, f.Type, sqldb.Micros(since)).Scan(&n)
	return n, err
}
