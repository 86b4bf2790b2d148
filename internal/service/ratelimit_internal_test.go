package service

import (
	"strconv"
	"testing"
	"time"
)

func TestRateLimiterAllow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		events []time.Duration // offsets from t0, all of key "a"
		want   []bool
	}{
		{"under the limit", []time.Duration{0, time.Second}, []bool{true, true}},
		{"over the limit", []time.Duration{0, 1, 2}, []bool{true, true, false}},
		{"refused events count", []time.Duration{0, 1, 2, 3}, []bool{true, true, false, false}},
		{"a new window", []time.Duration{0, 1, 2, time.Minute}, []bool{true, true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewRateLimiter(2, time.Minute)
			for i, d := range tt.events {
				if got := l.Allow("a", t0.Add(d)); got != tt.want[i] {
					t.Fatalf("event %d at %s: %v, want %v", i, d, got, tt.want[i])
				}
			}
			if !l.Allow("b", t0) {
				t.Error("another key shares the count")
			}
		})
	}
}

func TestRateLimiterSweep(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewRateLimiter(1, time.Minute)
	for i := range sweepAt {
		l.Allow(strconv.Itoa(i), t0)
	}
	l.Allow("late", t0.Add(time.Hour))
	if n := len(l.windows); n != 1 {
		t.Fatalf("%d windows kept after the sweep, want 1", n)
	}
}

func TestRateLimiterWaitAndAdd(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewRateLimiter(2, time.Minute)
	if w := l.Wait("a", t0); w != 0 {
		t.Fatalf("wait before any event = %v, want 0", w)
	}
	l.Add("a", t0)
	if w := l.Wait("a", t0); w != 0 {
		t.Fatalf("wait under the limit = %v, want 0", w)
	}
	if n := l.Add("a", t0.Add(10*time.Second)); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	if w := l.Wait("a", t0.Add(20*time.Second)); w != 40*time.Second {
		t.Errorf("wait at the limit = %v, want the rest of the window, 40s", w)
	}
	if w := l.Wait("b", t0.Add(20*time.Second)); w != 0 {
		t.Errorf("another key waits %v, want 0", w)
	}
	if w := l.Wait("a", t0.Add(time.Minute)); w != 0 {
		t.Errorf("wait once the window ended = %v, want 0", w)
	}
}
