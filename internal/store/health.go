package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// Ready reports whether the database answers with its schema up to date, for /readyz.
func (s *Store) Ready(ctx context.Context) error {
	return s.db.Ready(ctx, migrations, "migrations", "schema_migrations")
}

// WorkerBacklog is what the background worker has yet to do at now, for the metrics: the settle
// time of the oldest pending payout already due (zero when none is), the number of payout
// links waiting to be delivered, and the payouts waiting for an operator (RailNeedsOperator).
func (s *Store) WorkerBacklog(ctx context.Context, now time.Time) (oldestDue time.Time, deliveries, needsOperator int, err error) {
	var oldest sql.NullInt64
	err = s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT MIN(settle_at) FROM transfers WHERE `+workerPayouts+` AND settle_at <= ?`),
		sqldb.Micros(now)).Scan(&oldest)
	if err != nil {
		return time.Time{}, 0, 0, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM transfers WHERE `+pendingPayouts+
		` AND rail_state = '`+string(service.RailNeedsOperator)+`'`).Scan(&needsOperator)
	if err != nil {
		return time.Time{}, 0, 0, err
	}
	if oldest.Valid {
		oldestDue = sqldb.FromMicros(oldest.Int64)
	}
	err = s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM payout_links WHERE status = ?`),
		payouts.LinkDeliveryPending).Scan(&deliveries)
	return oldestDue, deliveries, needsOperator, err
}
