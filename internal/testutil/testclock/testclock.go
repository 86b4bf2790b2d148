// Package testclock is the one clock tests control, for every component that takes a Now
// function or a Clock (the service, dashboard sessions, login limits): tests move it instead of
// sleeping.
package testclock

import (
	"sync"
	"time"
)

// Clock is safe for concurrent use. Its zero value follows the wall clock; Set stops it at a
// time, Advance moves it forward, running or stopped.
type Clock struct {
	mu     sync.Mutex
	fixed  time.Time
	offset time.Duration
}

// New returns a clock stopped at t.
func New(t time.Time) *Clock { return &Clock{fixed: t.UTC()} }

// Now returns the clock's time, in UTC.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fixed.IsZero() {
		return c.fixed
	}
	return time.Now().Add(c.offset).UTC()
}

// Set stops the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fixed = t.UTC()
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fixed.IsZero() {
		c.fixed = c.fixed.Add(d)
		return
	}
	c.offset += d
}
