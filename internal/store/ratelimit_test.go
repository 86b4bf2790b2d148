package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

// TestRateCounts: a key's events count in a fixed window that starts with its first event and
// starts again with the first event after it ends; keys count apart; and the purge deletes only
// windows that ended.
func TestRateCounts(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		count := func(key string, at time.Duration) (int, time.Time) {
			t.Helper()
			var n int
			var ends time.Time
			if err := st.InTx(ctx, func(q service.Queries) (err error) {
				n, ends, err = q.CountRate(ctx, key, t0.Add(at), time.Minute)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return n, ends
		}
		steps := []struct {
			name     string
			key      string
			at       time.Duration
			want     int
			wantEnds time.Duration
		}{
			{"first event opens a window", "a", 0, 1, time.Minute},
			{"second in the window", "a", 10 * time.Second, 2, time.Minute},
			{"another key counts apart", "b", 30 * time.Second, 1, 90 * time.Second},
			{"third, the window's last instant", "a", time.Minute - time.Microsecond, 3, time.Minute},
			{"the window ended: a new one", "a", time.Minute, 1, 2 * time.Minute},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				n, ends := count(s.key, s.at)
				if n != s.want || !ends.Equal(t0.Add(s.wantEnds)) {
					t.Errorf("count %d ending %s, want %d ending %s", n, ends, s.want, t0.Add(s.wantEnds))
				}
			})
		}
		var purged int64
		if err := st.InTx(ctx, func(q service.Queries) (err error) {
			purged, err = q.PurgeRateCounts(ctx, t0.Add(90*time.Second))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if purged != 1 {
			t.Errorf("purged %d windows, want 1 (b's)", purged)
		}
		if n, _ := count("a", 90*time.Second); n != 2 {
			t.Errorf("a's open window counted %d after the purge, want 2", n)
		}
		if n, _ := count("b", 90*time.Second); n != 1 {
			t.Errorf("b's purged window counted %d, want a new window's 1", n)
		}
	})
}

// TestRateCountsConcurrent: events of one key counted at once, each in its own transaction,
// are each counted once: the counts answered are 1..n, none twice, none lost.
func TestRateCountsConcurrent(t *testing.T) {
	const n = 40
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		counts := make([]int, n)
		errs := inParallel(n, func(i int) error {
			return st.InTx(ctx, func(q service.Queries) (err error) {
				counts[i], _, err = q.CountRate(ctx, "k", t0, time.Minute)
				return err
			})
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(counts)
		for i, c := range counts {
			if c != i+1 {
				t.Fatalf("counts answered %v, want 1..%d once each", counts, n)
			}
		}
	})
}
