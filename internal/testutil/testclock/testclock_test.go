package testclock_test

import (
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/testclock"
)

func TestClock(t *testing.T) {
	var running testclock.Clock
	if d := time.Since(running.Now()); d < 0 || d > time.Minute {
		t.Errorf("zero Clock is %v off the wall clock", d)
	}
	running.Advance(time.Hour)
	if d := time.Until(running.Now()); d < 59*time.Minute || d > 61*time.Minute {
		t.Errorf("advanced running clock is %v ahead, want an hour", d)
	}

	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := testclock.New(start)
	if !c.Now().Equal(start) {
		t.Errorf("New(%v).Now() = %v", start, c.Now())
	}
	c.Advance(25 * time.Hour)
	if want := start.Add(25 * time.Hour); !c.Now().Equal(want) {
		t.Errorf("after Advance: %v, want %v", c.Now(), want)
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Errorf("after Set: %v, want %v", c.Now(), start)
	}
}
