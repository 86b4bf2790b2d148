package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
)

// TestKeysClaimedAhead: a batch whose jobs said which idempotency keys they will claim claims
// them in one statement before its jobs run (the batch view), and every claim still answers as
// it would alone. A key taken before
// answers its record; a key said by two jobs goes to one of them; a job rolled back, and one
// that never claims the key it said, leave it free; a job that claims its key with another
// request than it said gets its own claim; a job that said nothing and claims a key claimed
// ahead for a job not yet run finds it under way, or finished by that job, and never takes it.
func TestKeysClaimedAhead(t *testing.T) {
	const jobs = 30 // so that one of PostgreSQL's two writers' batches has at least 15
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		key := func(i int) string { return fmt.Sprintf("30000000-0000-4000-8000-%012d", i) }
		said := func(i int) *service.IdempotencyRecord {
			k := &service.IdempotencyRecord{AppID: appID, Key: key(i), Operation: "transfer",
				RequestHash: fmt.Sprint("hash ", i), ResourceID: fmt.Sprint("resource ", i), Created: t0}
			if i == 2 {
				k.Key = key(1) // jobs 1 and 2 say the same key
			}
			return k
		}
		taken := said(0)
		taken.ResourceID = "resource made earlier"
		if prior, err := st.ClaimIdempotencyKey(ctx, taken); err != nil || prior != nil {
			t.Fatalf("claim before the batch: %+v, %v", prior, err)
		}
		// Job 3 is rolled back; job 4 never claims its key; job 5 claims with another request
		// than it said; job 14 says nothing and claims job 7's key.
		claimed := func(i int) *service.IdempotencyRecord {
			k := *said(i)
			switch i {
			case 5:
				k.RequestHash = "another request"
			case 14:
				k = *said(7)
				k.RequestHash, k.ResourceID = "a stranger's", "a stranger's resource"
			}
			return &k
		}
		time.AfterFunc(100*time.Millisecond, holdWriters(t, st))
		priors := make([]*service.IdempotencyRecord, jobs)
		// Whether a job found keys claimed ahead, by the batch view, before its own claim.
		var foundAhead atomic.Bool
		errs := inParallel(jobs, func(i int) error {
			var intent service.Intent
			if i != 14 {
				intent.KeyToClaim = said(i)
			}
			return st.InTxWith(ctx, intent, func(q service.Queries) error {
				if len(store.KeysClaimedAhead(q)) > 0 {
					foundAhead.Store(true)
				}
				if i == 4 {
					return nil
				}
				prior, err := q.ClaimIdempotencyKey(ctx, claimed(i))
				priors[i] = prior
				if err == nil && i == 3 {
					err = errChangedMind
				}
				return err
			})
		})
		for i, err := range errs {
			if err != nil && !(i == 3 && errors.Is(err, errChangedMind)) {
				t.Errorf("job %d: %v", i, err)
			}
		}
		if !foundAhead.Load() {
			t.Error("no job found keys claimed ahead")
		}
		if p := priors[0]; p == nil || p.ResourceID != taken.ResourceID {
			t.Errorf("job 0 claimed a key taken before and got %+v, want its record", p)
		}
		if (priors[1] == nil) == (priors[2] == nil) {
			t.Errorf("jobs 1 and 2 claimed one key and got %+v and %+v, want one claim and one prior", priors[1], priors[2])
		}
		// Jobs 7 and 14 claim one key: whichever claims first owns it (on PostgreSQL they may run
		// in two batches at once), and the other finds it under way or finished by the owner.
		owner, other := 7, 14
		if priors[7] != nil {
			owner, other = 14, 7
		}
		if p := priors[other]; priors[owner] != nil || p == nil || (p.ResourceID != "" && p.ResourceID != claimed(owner).ResourceID) {
			t.Errorf("jobs 7 and 14 claimed one key and got %+v and %+v, want one claim, and the other finding it under way or finished",
				priors[7], priors[14])
		}
		for i := 5; i < jobs; i++ {
			if i == owner || i == other {
				continue
			}
			if priors[i] != nil {
				t.Errorf("job %d's claim found %+v, want the key its own", i, priors[i])
			}
		}
		// As stored after the batch: the claims kept are as their jobs made them; the keys of
		// jobs 3 and 4 are free.
		for _, i := range []int{5, owner, 10, 13} {
			want := claimed(i)
			again := *want
			again.RequestHash = "check"
			got, err := st.ClaimIdempotencyKey(ctx, &again)
			if err != nil || got == nil || got.RequestHash != want.RequestHash || got.ResourceID != want.ResourceID {
				t.Errorf("job %d's key is stored as %+v (%v), want hash %q, resource %q", i, got, err, want.RequestHash, want.ResourceID)
			}
		}
		for _, i := range []int{3, 4} {
			if got, err := st.ClaimIdempotencyKey(ctx, said(i)); err != nil || got != nil {
				t.Errorf("job %d's key after the batch: %+v, %v; want it free", i, got, err)
			}
		}
	})
}
