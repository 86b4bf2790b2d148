package dashstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
)

// Failed login attempts are rows rather than counters in process memory, so every copy of the
// dashboard behind a load balancer sees the same count. Keys are chosen by the caller (for
// example one per client address and one per account).

// AddLoginFailure records one failed attempt under each key.
func (s *Store) AddLoginFailure(ctx context.Context, at time.Time, keys ...string) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		for _, key := range keys {
			if _, err := tx.ExecContext(ctx, s.db.Rebind(`INSERT INTO login_failures (key, at) VALUES (?, ?)`),
				key, sqldb.Micros(at)); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoginFailures counts the failures recorded under key at or after since, and returns the time
// of the latest (zero when there is none), from which a back-off delay runs.
func (s *Store) LoginFailures(ctx context.Context, key string, since time.Time) (n int, last time.Time, err error) {
	var latest sql.NullInt64
	err = s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*), MAX(at) FROM login_failures WHERE key = ? AND at >= ?`),
		key, sqldb.Micros(since)).Scan(&n, &latest)
	if latest.Valid {
		last = sqldb.FromMicros(latest.Int64)
	}
	return n, last, err
}

// DeleteLoginFailures forgets the failures recorded before before, which no window needs any more.
func (s *Store) DeleteLoginFailures(ctx context.Context, before time.Time) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM login_failures WHERE at < ?`), sqldb.Micros(before))
	return err
}
