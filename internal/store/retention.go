package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
)

// pruneBatch is how many rows of a table one transaction of Prune deletes, so that the writer
// is never held for long.
const pruneBatch = 1000

// Pruned counts what Prune deleted.
type Pruned struct {
	Events, Deliveries, Attempts, Messages int
}

// Prune deletes what is older than cutoff and done with: webhook attempts of deliveries no
// longer pending, then those deliveries once none of their attempts is left, then events that no
// delivery names any more, and outbox messages sent, delivered or given up. A delivery still
// pending (to be sent, or sent again), its attempts and its event, and a message still queued,
// are kept whatever their age.
// Rows are found from the oldest by id up to the first row made at or after cutoff (ids grow
// with time), in transactions of at most pruneBatch rows per table.
func (s *Store) Prune(ctx context.Context, cutoff time.Time) (Pruned, error) {
	var total Pruned
	at := sqldb.Micros(cutoff)
	for _, step := range []struct {
		count *int
		query string
	}{
		{&total.Attempts, `DELETE FROM webhook_attempts WHERE id IN (
			SELECT a.id FROM webhook_attempts a
			WHERE a.id < COALESCE((SELECT min(id) FROM webhook_attempts WHERE created >= ?), 9223372036854775807)
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id AND d.status = 'pending')
			ORDER BY a.id LIMIT ?)`},
		{&total.Deliveries, `DELETE FROM webhook_deliveries WHERE id IN (
			SELECT id FROM webhook_deliveries
			WHERE id < COALESCE((SELECT min(id) FROM webhook_deliveries WHERE created >= ?), 9223372036854775807)
			AND status <> 'pending'
			AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id)
			ORDER BY id LIMIT ?)`},
		{&total.Events, `DELETE FROM events WHERE seq IN (
			SELECT e.seq FROM events e
			WHERE e.seq < COALESCE((SELECT min(seq) FROM events WHERE created >= ?), 9223372036854775807)
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
			ORDER BY e.seq LIMIT ?)`},
		// A queued message is still to be sent (or tried again): kept whatever its age.
		{&total.Messages, `DELETE FROM outbound_messages WHERE id IN (
			SELECT id FROM outbound_messages
			WHERE id < COALESCE((SELECT min(id) FROM outbound_messages WHERE created >= ?), 9223372036854775807)
			AND status <> 'queued'
			ORDER BY id LIMIT ?)`},
	} {
		query := s.db.Rebind(step.query)
		for {
			var n int64
			err := s.db.InTx(ctx, func(tx *sql.Tx) error {
				res, err := tx.ExecContext(ctx, query, at, pruneBatch)
				if err != nil {
					return err
				}
				n, err = res.RowsAffected()
				return err
			})
			if err != nil {
				return total, errors.Join(errors.New("prune"), err)
			}
			*step.count += int(n)
			if n < pruneBatch {
				break
			}
		}
	}
	return total, nil
}
