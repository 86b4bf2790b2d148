package store

import (
	"context"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const dayMicros = int64(24 * time.Hour / time.Microsecond)

// DailyVolumes sums the app's transfers per UTC day and type, from since on: payouts that are on
// the rail or completed, deposits, and completed balance transfers from the app to users (not
// money users sent back, nor payout links' reservations until claimed). Days without volume are
// absent.
func (q *Queries) DailyVolumes(ctx context.Context, appID string, since time.Time) (_ map[string]payouts.DailyVolume, err error) {
	defer wrap(&err, "daily volumes")
	// Grouped by the day's position in the select list: PostgreSQL takes a second "created / ?"
	// for another expression than the first, being another parameter.
	rows, err := q.query(ctx, `SELECT created / ?, type, COUNT(*), SUM(CASE WHEN amount < 0 THEN -amount ELSE amount END)
		FROM transfers WHERE app_id = ? AND created >= ? AND status <> ? AND status <> ?
		AND NOT (type = ? AND (amount > 0 OR status <> ?))
		GROUP BY 1, type`,
		dayMicros, appID, sqldb.Micros(since), payouts.TransferFailed, payouts.TransferFlagged,
		payouts.TransferBalance, payouts.TransferCompleted)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]payouts.DailyVolume{}
	for rows.Next() {
		var day, count, sum int64
		var typ payouts.TransferType
		if err := rows.Scan(&day, &typ, &count, &sum); err != nil {
			return nil, err
		}
		date := time.UnixMicro(day * dayMicros).UTC().Format("2006-01-02")
		v := out[date]
		v.Date = date
		switch typ {
		case payouts.TransferPayout:
			v.Payouts += payouts.Money(sum)
			v.PayoutCount += int(count)
		case payouts.TransferRefill:
			v.Deposits += payouts.Money(sum)
		case payouts.TransferBalance:
			v.ToUsers += payouts.Money(sum)
		}
		out[date] = v
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
