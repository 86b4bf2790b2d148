package service

import (
	"sync"
	"time"
)

// sweepAt is how many keys the limiter holds before it drops the windows that have ended.
const sweepAt = 10_000

// RateLimiter allows at most max events per key in each fixed window of per, counted in memory:
// the one limiter behind the limits on payees identifying themselves and on messages sent (see
// Limits), and behind the API's throttle of wrong credentials. A restart forgets the counts and several processes each keep their own; both are
// acceptable for limits meant to stop floods, not to bill.
type RateLimiter struct {
	max int
	per time.Duration

	mu      sync.Mutex
	windows map[string]window
}

type window struct {
	start time.Time
	count int
}

// NewRateLimiter returns a limiter of max events per key every per.
func NewRateLimiter(max int, per time.Duration) *RateLimiter {
	return &RateLimiter{max: max, per: per, windows: map[string]window{}}
}

// Allow counts an event of key at now and reports whether it is within the limit. Refused
// events count too, so hammering a key does not open it sooner.
func (l *RateLimiter) Allow(key string, now time.Time) bool {
	return l.Add(key, now) <= l.max
}

// Add counts an event of key at now and returns the count of its window.
func (l *RateLimiter) Add(key string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.windows[key]
	if !ok || !now.Before(w.start.Add(l.per)) {
		if len(l.windows) >= sweepAt {
			l.sweep(now)
		}
		w = window{start: now}
	}
	w.count++
	l.windows[key] = w
	return w.count
}

// Wait is how long key must wait at now before an event of it is within the limit again; zero
// when it may act now. It counts nothing: a caller that only counts failures asks Wait before
// the attempt and Adds after a failure.
func (l *RateLimiter) Wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.windows[key]
	if !ok || w.count < l.max {
		return 0
	}
	return max(w.start.Add(l.per).Sub(now), 0)
}

// sweep drops the windows that have ended by now.
func (l *RateLimiter) sweep(now time.Time) {
	for k, w := range l.windows {
		if !now.Before(w.start.Add(l.per)) {
			delete(l.windows, k)
		}
	}
}
