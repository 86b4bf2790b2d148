package dashstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
)

// TestBulkLease: a running job is held by one process at a time through its lease. Another
// process cannot claim it while the lease runs, nor renew or release it; once the lease ends
// unrenewed the job is listed as unheld and another process takes it over, and the first then
// finds it lost. Of processes claiming a job at once exactly one gets it.
func TestBulkLease(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		job := dashstore.BulkJob{AppID: "app1", FileHash: "lease", FileName: "march.csv", OperatorID: "op1",
			Status: dashstore.BulkPreviewed, Created: t0}
		if _, err := s.CreateBulkJob(ctx, &job, nil); err != nil {
			t.Fatal(err)
		}
		ada := dashstore.Operator{ID: "op1", Email: "ada@example.com"}
		const lease = 30 * time.Second
		steps := []struct {
			name string
			do   func() (bool, error)
			want bool
		}{
			{"A claims the confirmed job", func() (bool, error) {
				return s.ClaimBulkJob(ctx, "app1", job.ID, "A", ada, t0, t0.Add(lease))
			}, true},
			{"B cannot claim it while A holds it", func() (bool, error) {
				return s.ClaimBulkJob(ctx, "app1", job.ID, "B", ada, t0.Add(lease-time.Microsecond), t0.Add(2*lease))
			}, false},
			{"another app cannot claim it", func() (bool, error) {
				return s.ClaimBulkJob(ctx, "app2", job.ID, "B", ada, t0.Add(time.Hour), t0.Add(2*time.Hour))
			}, false},
			{"B cannot renew A's lease", func() (bool, error) { return s.RenewBulkLease(ctx, job.ID, "B", t0.Add(time.Hour)) }, false},
			{"A renews", func() (bool, error) { return s.RenewBulkLease(ctx, job.ID, "A", t0.Add(2*lease)) }, true},
			{"B still cannot claim it", func() (bool, error) {
				return s.ClaimBulkJob(ctx, "app1", job.ID, "B", ada, t0.Add(lease), t0.Add(3*lease))
			}, false},
			{"A dies: once the lease ends B takes it over", func() (bool, error) {
				return s.ClaimBulkJob(ctx, "app1", job.ID, "B", ada, t0.Add(2*lease), t0.Add(3*lease))
			}, true},
			{"A finds it lost: no renewal", func() (bool, error) { return s.RenewBulkLease(ctx, job.ID, "A", t0.Add(4*lease)) }, false},
			{"nor a release", func() (bool, error) {
				return s.ReleaseBulkJob(ctx, job.ID, "A", dashstore.BulkDone, t0.Add(2*lease))
			}, false},
			{"B finishes it", func() (bool, error) {
				return s.ReleaseBulkJob(ctx, job.ID, "B", dashstore.BulkDone, t0.Add(2*lease))
			}, true},
		}
		for _, st := range steps {
			got, err := st.do()
			if err != nil || got != st.want {
				t.Fatalf("%s: %v, %v; want %v", st.name, got, err, st.want)
			}
		}
		if got, err := s.BulkJob(ctx, "app1", job.ID); err != nil || got.Status != dashstore.BulkDone {
			t.Fatalf("after B finished: %+v, %v; want done", got, err)
		}
		if l, err := s.BulkJobLease(ctx, "app1", job.ID); err != nil || l.Held(t0) || l.RunByEmail != ada.Email {
			t.Fatalf("lease of a finished job: %+v, %v; want none, run for %s", l, err, ada.Email)
		}

		t.Run("a job left running without a lease is listed to take over", func(t *testing.T) {
			if ok, err := s.ClaimBulkJob(ctx, "app1", job.ID, "C", ada, t0.Add(time.Hour), t0.Add(time.Hour+lease)); err != nil || !ok {
				t.Fatalf("claim: %v, %v", ok, err)
			}
			unheld := func(at time.Time) int {
				t.Helper()
				ls, err := s.UnheldBulkJobs(ctx, "app1", at)
				if err != nil {
					t.Fatal(err)
				}
				return len(ls)
			}
			if n := unheld(t0.Add(time.Hour)); n != 0 {
				t.Errorf("%d unheld while C holds it, want 0", n)
			}
			if n := unheld(t0.Add(time.Hour + lease)); n != 1 {
				t.Errorf("%d unheld once C's lease ended, want 1", n)
			}
			if ls, err := s.UnheldBulkJobs(ctx, "app2", t0.Add(2*time.Hour)); err != nil || len(ls) != 0 {
				t.Errorf("another app's unheld jobs: %v, %v", ls, err)
			}
		})

		t.Run("of claims at once one wins", func(t *testing.T) {
			const n = 12
			at := t0.Add(3 * time.Hour)
			var wg sync.WaitGroup
			won := make([]bool, n)
			for i := range n {
				wg.Go(func() {
					ok, err := s.ClaimBulkJob(ctx, "app1", job.ID, fmt.Sprint("P", i), ada, at, at.Add(lease))
					if err != nil {
						t.Error(err)
					}
					won[i] = ok
				})
			}
			wg.Wait()
			winners := 0
			for _, w := range won {
				if w {
					winners++
				}
			}
			if winners != 1 {
				t.Errorf("%d processes claimed the job at once, want 1", winners)
			}
		})
	})
}
