package api

import (
	"sync"
	"time"
)

// keyFailures counts wrong credentials per client address in fixed windows. The counts live in
// this process's memory: behind a load balancer each instance limits on its own, which still
// bounds guessing to a few per instance and window (an API key is far beyond guessing anyway;
// this stops a client hammering the key check).
type keyFailures struct {
	limit  int
	window time.Duration

	mu   sync.Mutex
	byIP map[string]failureWindow
}

type failureWindow struct {
	start time.Time
	n     int
}

// sweepAt is the number of addresses past which expired windows are dropped, so the map stays
// small whatever the number of addresses seen.
const sweepAt = 4096

func newKeyFailures(limit int, window time.Duration) *keyFailures {
	return &keyFailures{limit: limit, window: window, byIP: map[string]failureWindow{}}
}

// wait is how long ip must still wait before its credentials are checked again; zero when it
// may try now.
func (f *keyFailures) wait(ip string, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.byIP[ip]
	if !ok || w.n < f.limit {
		return 0
	}
	return max(w.start.Add(f.window).Sub(now), 0)
}

// add counts one failure from ip at now.
func (f *keyFailures) add(ip string, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.byIP) >= sweepAt {
		for k, w := range f.byIP {
			if !now.Before(w.start.Add(f.window)) {
				delete(f.byIP, k)
			}
		}
	}
	w := f.byIP[ip]
	if !now.Before(w.start.Add(f.window)) {
		w = failureWindow{start: now}
	}
	w.n++
	f.byIP[ip] = w
}
