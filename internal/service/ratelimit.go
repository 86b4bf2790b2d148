package service

import (
	"context"
	"time"
)

// RateLimiter allows at most max events per key in each fixed window of per: the one limiter
// behind the limits on payees identifying themselves and on messages sent (see Limits), and
// behind the API's throttle of wrong credentials. The counts live in the store, one row per key
// counted by one statement (Queries.CountRate), so every process on the database shares them and
// a restart keeps them; the worker deletes the windows that ended (PurgeRateCounts).
type RateLimiter struct {
	store Store
	name  string // the namespace of the limiter's keys in the store
	max   int
	per   time.Duration
}

// RateLimiter returns the limiter called name of max events per key every per. Limiters of one
// name share their counts, in this process and in every other on the database.
func (s *Service) RateLimiter(name string, max int, per time.Duration) *RateLimiter {
	return &RateLimiter{store: s.store, name: name, max: max, per: per}
}

// Allow counts an event of key at now and reports whether it is within the limit. Refused
// events count too, so hammering a key does not open it sooner.
func (l *RateLimiter) Allow(ctx context.Context, key string, now time.Time) (bool, error) {
	wait, err := l.Take(ctx, key, now)
	return wait == 0, err
}

// Take counts an event of key at now and returns zero when it is within the limit, else how long
// until the key's window ends and its events are within the limit again.
func (l *RateLimiter) Take(ctx context.Context, key string, now time.Time) (time.Duration, error) {
	n, ends, err := l.count(ctx, key, now)
	if err != nil || n <= l.max {
		return 0, err
	}
	return max(ends.Sub(now), time.Microsecond), nil
}

// Add counts an event of key at now and returns the count of its window.
func (l *RateLimiter) Add(ctx context.Context, key string, now time.Time) (int, error) {
	n, _, err := l.count(ctx, key, now)
	return n, err
}

// count counts an event of key at now, in one statement of the write path.
func (l *RateLimiter) count(ctx context.Context, key string, now time.Time) (n int, ends time.Time, err error) {
	err = l.store.InTx(ctx, func(q Queries) (err error) {
		n, ends, err = q.CountRate(ctx, l.key(key), now, l.per)
		return err
	})
	return n, ends, err
}

func (l *RateLimiter) key(key string) string { return l.name + ":" + key }

// PurgeRateCounts deletes the rate counts whose window has ended.
func (s *Service) PurgeRateCounts(ctx context.Context) (int64, error) {
	var n int64
	err := s.store.InTx(ctx, func(q Queries) (err error) {
		n, err = q.PurgeRateCounts(ctx, s.now())
		return err
	})
	return n, err
}
