package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// undoWorld is an app with a funded wallet and users, for jobs that add to their batch every
// kind of thing the store keeps for it.
type undoWorld struct {
	st                    *store.Store
	appID                 string
	bank, wallet          *ledger.Account
	users                 []*service.UserRecord
	transfers             []*service.TransferRecord
	heldPostings          []*ledger.Posting
	yearlyAnswered        []payouts.Money
	mu                    sync.Mutex
	claimedAheadWhenTaken []bool
}

// newUndoWorld makes n users; those withWallet(i) have their wallet made already.
func newUndoWorld(t *testing.T, st *store.Store, n int, withWallet func(i int) bool) *undoWorld {
	t.Helper()
	w := &undoWorld{st: st, transfers: make([]*service.TransferRecord, n), heldPostings: make([]*ledger.Posting, n),
		yearlyAnswered: make([]payouts.Money, n), claimedAheadWhenTaken: make([]bool, n)}
	w.appID, w.bank, w.wallet = fundedWallet(t, st, 1000*int64(n))
	for i := range n {
		w.users = append(w.users, newUser(t, st, w.appID, i, fmt.Sprintf("u%d@example.com", i)))
		if !withWallet(i) {
			continue
		}
		err := st.InTx(context.Background(), func(q service.Queries) error {
			_, err := q.EnsureAccount(context.Background(), w.appID, ledger.UserWallet, w.users[i].ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// How a job of the undo tests ends.
type ending int

const (
	kept           ending = iota // its writes stand
	keptUnread                   // its writes stand; it ends without the read of a held table
	failsUnchanged               // it fails having changed no row: it only read, held, netted and claimed
	failsChanged                 // it fails after it made its user's wallet and changed its user
	failsWroteHeld               // it fails after a read that wrote its own held rows
)

func (w *undoWorld) key(i int) *service.IdempotencyRecord {
	return &service.IdempotencyRecord{AppID: w.appID, Key: fmt.Sprintf("undo-%d", i), Operation: "transfer",
		RequestHash: fmt.Sprint("hash ", i), Created: t0}
}

// work adds to q's batch all a job can: a transfer held, a yearly payment held (its total read
// first), its user's wallet made or read, the transfer's movement from the app's wallet to it
// posted (its posting held, its guarded debit netted), its key claimed (from the batch's claims
// ahead when there are), the app and its endpoints copied into the batch view, and a read of a
// held table, which writes the rows held so far, the batch's other jobs' among them. A job that
// will fail unchanged reads the held table first, before it holds rows of its own, and its user
// has a wallet already, as has one that fails after its own rows were written. One that fails
// changed makes its user's wallet and changes its user, which drops the view, and copies the app
// again, but reads no held table after.
func (w *undoWorld) work(ctx context.Context, q service.Queries, i int, end ending) error {
	if end == failsUnchanged {
		if _, err := q.GetTransfer(ctx, w.appID, "30000000-0000-4000-8000-999999999999"); !errors.Is(err, service.ErrNoRecord) {
			return fmt.Errorf("read of a transfer never made: %v", err)
		}
	}
	w.transfers[i], w.heldPostings[i] = heldTransfer(w.appID, w.bank.ID, w.wallet.ID, i)
	if err := q.CreateTransfer(ctx, w.transfers[i]); err != nil {
		return err
	}
	total, err := addPayment(ctx, q, w.appID, w.users[i].ID, payouts.Money(i+1))
	if err != nil {
		return err
	}
	w.yearlyAnswered[i] = total
	userWallet, err := q.EnsureAccount(ctx, w.appID, ledger.UserWallet, w.users[i].ID)
	if err != nil {
		return err
	}
	w.heldPostings[i].Debit, w.heldPostings[i].Credit = w.wallet.ID, userWallet.ID
	if err := post(ctx, q, w.heldPostings[i], w.wallet.ID); err != nil {
		return err
	}
	for _, k := range store.KeysClaimedAhead(q) {
		if k == w.key(i).Key {
			w.mu.Lock()
			w.claimedAheadWhenTaken[i] = true
			w.mu.Unlock()
		}
	}
	if prior, err := q.ClaimIdempotencyKey(ctx, w.key(i)); err != nil || prior != nil {
		return fmt.Errorf("claim of key %d: %+v, %w", i, prior, err)
	}
	if _, err := q.GetApp(ctx, w.appID); err != nil {
		return err
	}
	if _, err := q.ListWebhookEndpoints(ctx, w.appID); err != nil {
		return err
	}
	switch end {
	case failsUnchanged, keptUnread:
		return nil
	case failsChanged:
		u, err := q.GetUser(ctx, w.appID, w.users[i].ID)
		if err != nil {
			return err
		}
		u.Status = payouts.UserVerified
		if err := q.UpdateUser(ctx, u); err != nil {
			return err
		}
		_, err = q.GetApp(ctx, w.appID)
		return err
	}
	_, err = q.GetTransfer(ctx, w.appID, w.transfers[i].ID)
	return err
}

// check reads back what the jobs left: the transfers, postings, yearly totals, user wallets and
// keys of the jobs kept are stored as their job was told, those of the jobs that failed are not
// (nor their users' changes, nor the wallets they made), and the app's wallet holds what the
// kept debits left.
func (w *undoWorld) check(t *testing.T, endOf func(i int) ending) {
	t.Helper()
	ctx := context.Background()
	spent := int64(0)
	for i, tr := range w.transfers {
		got, err := w.st.GetTransfer(ctx, w.appID, tr.ID)
		u, uErr := w.st.GetUser(ctx, w.appID, w.users[i].ID)
		total, tErr := w.st.YearlyPayments(ctx, w.appID, w.users[i].ID, 2026)
		again := w.key(i)
		again.RequestHash = "check"
		prior, kErr := w.st.ClaimIdempotencyKey(ctx, again)
		userWallet, wErr := w.st.FindAccount(ctx, w.appID, ledger.UserWallet, w.users[i].ID)
		if err := errors.Join(uErr, tErr, kErr); err != nil {
			t.Fatal(err)
		}
		if u.Status != payouts.UserUnverified {
			t.Errorf("job %d: user %s, want the change undone", i, u.Status)
		}
		if end := endOf(i); end != kept && end != keptUnread {
			walletLeft := !errors.Is(wErr, service.ErrNoRecord)
			if end == failsUnchanged || end == failsWroteHeld { // the one it read, made before
				walletLeft = wErr != nil || userWallet.Balance() != 0
			}
			if !errors.Is(err, service.ErrNoRecord) || total != 0 || prior != nil || walletLeft {
				t.Errorf("job %d failed, yet left transfer %v, yearly total %d, key %+v, user wallet %+v (%v)", i, err, total, prior, userWallet, wErr)
			}
			continue
		}
		spent += int64(i + 1)
		lines, lErr := w.st.PostingsOfTransfers(ctx, w.appID, []string{tr.ID})
		switch {
		case err != nil || got.Seq != tr.Seq:
			t.Errorf("job %d: transfer %+v, %v; given seq %d", i, got, err, tr.Seq)
		case lErr != nil || len(lines) != 1 || lines[0].ID != w.heldPostings[i].ID:
			t.Errorf("job %d: postings %+v, %v; given id %d", i, lines, lErr, w.heldPostings[i].ID)
		case total != payouts.Money(i+1) || total != w.yearlyAnswered[i]:
			t.Errorf("job %d: yearly total %d (answered %d)", i, total, w.yearlyAnswered[i])
		case wErr != nil || userWallet.Balance() != int64(i+1):
			t.Errorf("job %d: user wallet %+v (%v), want balance %d", i, userWallet, wErr, i+1)
		case prior == nil || prior.RequestHash != w.key(i).RequestHash:
			t.Errorf("job %d: key stored as %+v", i, prior)
		}
	}
	a, err := w.st.FindAccount(ctx, w.appID, ledger.AppWallet, "")
	if err != nil || a.Balance() != 1000*int64(len(w.transfers))-spent {
		t.Errorf("wallet %+v (%v), want balance %d", a, err, 1000*int64(len(w.transfers))-spent)
	}
}

// TestOneUndo: what a job adds to its batch without changing a row (held rows, yearly payments,
// netted deltas, a key claimed ahead and taken) is undone by one path: a job that fails so
// leaves the batch's writes exactly as they were before it, the database with nothing of its,
// and its batch going on without running anything again. What it read and the rows of earlier
// jobs it wrote stay.
func TestOneUndo(t *testing.T) {
	const jobs = 24 // so that one of PostgreSQL's two writers' batches has at least 12
	failed := func(i int) bool { return i%3 == 1 }
	endOf := func(i int) ending {
		if failed(i) {
			return failsUnchanged
		}
		return kept
	}
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		w := newUndoWorld(t, st, jobs, failed)
		runs := inSharedBatches(t, st, jobs, failed, func(i int) (service.Intent, func(q service.Queries) error) {
			intent := service.Intent{KeyToClaim: w.key(i), UsersToRead: []string{w.users[i].ID}}
			return intent, func(q service.Queries) error { return w.work(ctx, q, i, endOf(i)) }
		})
		if len(runs) != jobs {
			t.Errorf("%d runs of %d jobs: a batch ran again", len(runs), jobs)
		}
		// The job after one that failed, in the same batch, finds the batch as the failed one did,
		// but for a key the failed job claimed itself, which it gives back at the batch's end.
		compared := 0
		for n, r := range runs {
			if !r.failed || !w.claimedAheadWhenTaken[r.i] {
				continue
			}
			for _, next := range runs[n+1:] {
				if next.batch != r.batch {
					continue
				}
				if next.state != r.state {
					t.Errorf("a job undone left its batch changed:%s", lineDiff(next.state, r.state))
				}
				compared++
				break
			}
		}
		if compared == 0 {
			t.Error("no job ran after one undone in its batch")
		}
		var taken bool
		for i, ahead := range w.claimedAheadWhenTaken {
			taken = taken || (ahead && failed(i))
		}
		if !taken {
			t.Error("no failed job took a key claimed ahead")
		}
		w.check(t, endOf)
	})
}

// TestJobThatChangedRowsFailsItsBatch: a job that fails after it changed rows (a wallet made and
// its user changed, or its own held rows written before a read) cannot be taken out of its
// batch's transaction alone: its batch's jobs run again, each alone, and the database keeps
// nothing of it and all of the others. Each way is tried in batches of its own, so that one
// cannot hide the other. Beside a job that wrote its own held rows the others end without a
// read of a held table: such a read, failing for what a failed job left behind, would run the
// batch again for its own reason and hide the failed job's rows left written.
func TestJobThatChangedRowsFailsItsBatch(t *testing.T) {
	const jobs = 24
	for _, tc := range []struct {
		name            string
		failing, others ending
	}{
		{"changed", failsChanged, kept},
		{"wrote held rows", failsWroteHeld, keptUnread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			engines(t, func(t *testing.T, st *store.Store) {
				endOf := func(i int) ending {
					if i%8 == 3 {
						return tc.failing
					}
					return tc.others
				}
				failed := func(i int) bool { return endOf(i) == tc.failing }
				ctx := context.Background()
				w := newUndoWorld(t, st, jobs, func(i int) bool { return endOf(i) == failsWroteHeld })
				runs := inSharedBatches(t, st, jobs, failed, func(i int) (service.Intent, func(q service.Queries) error) {
					intent := service.Intent{KeyToClaim: w.key(i), UsersToRead: []string{w.users[i].ID}}
					return intent, func(q service.Queries) error { return w.work(ctx, q, i, endOf(i)) }
				})
				if len(runs) <= jobs {
					t.Errorf("%d runs of %d jobs: no batch ran again", len(runs), jobs)
				}
				w.check(t, endOf)
			})
		})
	}
}

// jobRun is a job of inSharedBatches as it started: which job, its batch, whether it fails, and
// the batch's state (store.BatchState) it found.
type jobRun struct {
	i      int
	batch  any
	failed bool
	state  string
}

// inSharedBatches runs jobs write transactions at once, queued behind held writers so that they
// share batches; job(i) gives the i-th's intent and work, and those that failed(i) then fail
// with errChangedMind. It fails t when a job answers anything else, and returns the jobs' runs in
// the order they started.
func inSharedBatches(t *testing.T, st *store.Store, jobs int, failed func(i int) bool,
	job func(i int) (service.Intent, func(q service.Queries) error)) []jobRun {
	t.Helper()
	var mu sync.Mutex
	var runs []jobRun
	time.AfterFunc(100*time.Millisecond, holdWriters(t, st))
	errs := inParallel(jobs, func(i int) error {
		intent, work := job(i)
		return st.InTxWith(context.Background(), intent, func(q service.Queries) error {
			mu.Lock()
			runs = append(runs, jobRun{i, store.BatchOf(q), failed(i), store.BatchState(q)})
			mu.Unlock()
			if err := work(q); err != nil {
				return err
			}
			if failed(i) {
				return errChangedMind
			}
			return nil
		})
	})
	for i, err := range errs {
		if failed(i) != errors.Is(err, errChangedMind) || (!failed(i) && err != nil) {
			t.Errorf("job %d: %v", i, err)
		}
	}
	return runs
}

// lineDiff shows the lines of got that differ from want's.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var out strings.Builder
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&out, "\n  now: %s\n  was: %s", gl, wl)
		}
	}
	return out.String()
}

// TestKeyOfJobUndone: a key its job said it would claim, claimed ahead by the batch already
// finished with the transfer the job chose (as service.idempotentAs claims it), and taken by that
// job before it is rolled back, is for a later job of the same batch that claims it again under
// way: never finished with the transfer rolled back. The later job has not said the key (two
// jobs that say one key leave it to their own claims, startBatch), as a job claims a key not
// said; and after the commit the key is free again, with no transfer of the job undone and the
// wallet as it was.
func TestKeyOfJobUndone(t *testing.T) {
	const jobs = 24 // so that one of PostgreSQL's two writers' batches has at least 12
	undone := func(i int) bool { return i%3 == 1 }
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		w := newUndoWorld(t, st, jobs, func(int) bool { return false })
		for i := range jobs {
			w.transfers[i], w.heldPostings[i] = heldTransfer(w.appID, w.bank.ID, w.wallet.ID, i)
		}
		claimFinished := func(i, by int) *service.IdempotencyRecord {
			k := w.key(i)
			k.ResourceID = w.transfers[by].ID
			return k
		}
		var mu sync.Mutex
		undoneIn := map[any][]int{} // by batch, its jobs rolled back that took their key claimed ahead
		probed := 0
		time.AfterFunc(100*time.Millisecond, holdWriters(t, st))
		errs := inParallel(jobs, func(i int) error {
			return st.InTxWith(ctx, service.Intent{KeyToClaim: claimFinished(i, i)}, func(q service.Queries) error {
				if !undone(i) {
					// The same request as each job undone before it in the batch, made again.
					mu.Lock()
					earlier := undoneIn[store.BatchOf(q)]
					delete(undoneIn, store.BatchOf(q))
					mu.Unlock()
					for _, a := range earlier {
						prior, err := q.ClaimIdempotencyKey(ctx, claimFinished(a, i))
						if err != nil {
							return err
						}
						if prior == nil || prior.ResourceID != "" {
							t.Errorf("job %d's claim of the key of job %d, rolled back: %+v, want it under way", i, a, prior)
						}
						mu.Lock()
						probed++
						mu.Unlock()
					}
					return nil
				}
				ahead := slices.Contains(store.KeysClaimedAhead(q), w.key(i).Key)
				if prior, err := q.ClaimIdempotencyKey(ctx, claimFinished(i, i)); err != nil || prior != nil {
					return fmt.Errorf("claim of key %d: %+v, %w", i, prior, err)
				}
				if err := q.CreateTransfer(ctx, w.transfers[i]); err != nil {
					return err
				}
				w.heldPostings[i].Debit, w.heldPostings[i].Credit = w.wallet.ID, w.bank.ID
				if err := post(ctx, q, w.heldPostings[i], w.wallet.ID); err != nil {
					return err
				}
				if ahead {
					mu.Lock()
					undoneIn[store.BatchOf(q)] = append(undoneIn[store.BatchOf(q)], i)
					mu.Unlock()
				}
				return errChangedMind
			})
		})
		for i, err := range errs {
			if undone(i) != errors.Is(err, errChangedMind) || (!undone(i) && err != nil) {
				t.Errorf("job %d: %v", i, err)
			}
		}
		if probed == 0 {
			t.Fatal("no job claimed the key of one undone before it in its batch")
		}
		for i := range jobs {
			if !undone(i) {
				continue
			}
			if tr, err := st.GetTransfer(ctx, w.appID, w.transfers[i].ID); !errors.Is(err, service.ErrNoRecord) {
				t.Errorf("job %d was undone, yet left transfer %+v (%v)", i, tr, err)
			}
			again := w.key(i)
			again.RequestHash = "check"
			if prior, err := st.ClaimIdempotencyKey(ctx, again); err != nil || prior != nil {
				t.Errorf("job %d was undone, yet its key is %+v (%v), want it free", i, prior, err)
			}
		}
		if a, err := st.FindAccount(ctx, w.appID, ledger.AppWallet, ""); err != nil || a.Balance() != 1000*jobs {
			t.Errorf("wallet %+v (%v), want balance %d", a, err, 1000*jobs)
		}
	})
}
