package store

import (
	"context"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
)

// CountRate counts one event of key at now and returns the count of its window and when that
// window ends. A window that has ended by now starts again at now, for per. One statement reads
// and writes the row, so concurrent events, from any process, are each counted once.
func (q *Queries) CountRate(ctx context.Context, key string, now time.Time, per time.Duration) (count int, ends time.Time, err error) {
	defer wrap(&err, "count rate of %s", key)
	at := sqldb.Micros(now)
	var end int64
	err = q.queryRow(ctx, `INSERT INTO rate_counts (key, count, window_end) VALUES (?, 1, ?)
		ON CONFLICT (key) DO UPDATE SET
			count = CASE WHEN rate_counts.window_end <= ? THEN 1 ELSE rate_counts.count + 1 END,
			window_end = CASE WHEN rate_counts.window_end <= ? THEN excluded.window_end ELSE rate_counts.window_end END
		RETURNING count, window_end`, key, sqldb.Micros(now.Add(per)), at, at).Scan(&count, &end)
	return count, sqldb.FromMicros(end), err
}

// PurgeRateCounts deletes the rows whose window ended by now and returns how many.
func (q *Queries) PurgeRateCounts(ctx context.Context, now time.Time) (_ int64, err error) {
	defer wrap(&err, "purge rate counts")
	res, err := q.exec(ctx, `DELETE FROM rate_counts WHERE window_end <= ?`, sqldb.Micros(now))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
