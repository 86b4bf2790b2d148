package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestUserReadKnowsWallet: in a write transaction the user's read, which joins the wallet, stands
// for the wallet's read: the wallet found next is the same account as the batch has it, its
// guard counts the transaction's debits, and a user with no wallet yet gets one made.
func TestUserReadKnowsWallet(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, _ := fundedWallet(t, st, 0)
		funded, bare := newUser(t, st, appID, 1, "a@example.com"), newUser(t, st, appID, 2, "b@example.com")
		wallet, err := st.EnsureAccount(ctx, appID, ledger.UserWallet, funded.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, payment(appID, bank.ID, wallet.ID, 100)) }); err != nil {
			t.Fatal(err)
		}
		debit := func(q service.Queries, account, amount int64) error {
			return post(ctx, q, payment(appID, account, bank.ID, amount), account)
		}
		err = st.InTx(ctx, func(q service.Queries) error {
			for _, want := range []int64{100, 40} {
				u, err := q.GetUser(ctx, appID, funded.ID)
				if err != nil {
					return err
				}
				a, err := q.EnsureAccount(ctx, appID, ledger.UserWallet, funded.ID)
				if err != nil {
					return err
				}
				if int64(u.Wallet.Amount) != want || a.ID != wallet.ID || a.Balance() != want {
					t.Errorf("user's wallet %d, account %d holding %d; want account %d holding %d", u.Wallet.Amount, a.ID, a.Balance(), wallet.ID, want)
				}
				if err := debit(q, a.ID, 60); want == 40 && !errors.Is(err, service.ErrOverdraft) {
					t.Errorf("debit of 60 from 40: %v, want an overdraft", err)
				} else if want == 100 && err != nil {
					return err
				}
			}
			if _, err := q.GetUser(ctx, appID, bare.ID); err != nil {
				return err
			}
			a, err := q.EnsureAccount(ctx, appID, ledger.UserWallet, bare.ID)
			if err != nil || a.ID == wallet.ID || a.Ref != bare.ID {
				t.Errorf("new wallet %+v, %v; want a new account of user %s", a, err, bare.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if a, _ := st.FindAccount(ctx, appID, ledger.UserWallet, funded.ID); a.Balance() != 40 {
			t.Errorf("committed wallet holds %d, want 40", a.Balance())
		}
	})
}

// TestBatchReads: a write transaction reads an app and its webhook endpoints once, yet every
// read answers what the transaction sees: a write to either, a savepoint rolled back and a job
// of a shared batch rolled back all show through, and a caller changing what it got changes

// TestStatusChangeKeepsTheView: a transfer's change of status (its row and its history's) writes
// no table the batch view copies, so the app read before it stays in the view for the batch's
// next jobs; an update of the app drops it.
func TestStatusChangeKeepsTheView(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		tr, _ := heldTransfer(appID, bank.ID, wallet.ID, 1)
		tr.Status = payouts.TransferPending
		if err := st.InTx(ctx, func(q service.Queries) error { return q.CreateTransfer(ctx, tr) }); err != nil {
			t.Fatal(err)
		}
		err := st.InTx(ctx, func(q service.Queries) error {
			app, err := q.GetApp(ctx, appID)
			if err != nil {
				return err
			}
			tr.Status, tr.Updated = payouts.TransferCompleted, t0.Add(time.Minute)
			if err := q.UpdateTransfer(ctx, tr, payouts.TransferPending); err != nil {
				return err
			}
			if got := store.AppsInView(q); !slices.Equal(got, []string{appID}) {
				t.Errorf("after a status change the view holds apps %v, want %v", got, []string{appID})
			}
			if err := q.UpdateApp(ctx, app); err != nil {
				return err
			}
			if got := store.AppsInView(q); len(got) != 0 {
				t.Errorf("after an update of the app the view holds apps %v, want none", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if h, err := st.TransferHistory(ctx, appID, tr.ID); err != nil || len(h) != 2 || h[1].Status != payouts.TransferCompleted {
			t.Fatalf("history %+v (%v), want pending then completed", h, err)
		}
	})
}

// nothing for the next.
func TestBatchReads(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		endpoint := func(n int) *service.WebhookEndpointRecord {
			return &service.WebhookEndpointRecord{AppID: appID, SealedSecret: []byte("sealed"), WebhookEndpoint: payouts.WebhookEndpoint{
				ID: fmt.Sprintf("20000000-0000-4000-8000-%012d", n), URL: "https://example.com/hook", Enabled: true,
				EventTypes: []payouts.EventType{"transfer.created"}, Created: payouts.NewTime(t0)}}
		}
		// seen reads the app and its endpoints and fails unless they are as wanted (endpoints
		// enabled).
		seen := func(q service.Queries, status payouts.AppStatus, endpoints int) error {
			a, err := q.GetApp(ctx, appID)
			if err != nil {
				return err
			}
			eps, err := q.ListWebhookEndpoints(ctx, appID)
			if err != nil {
				return err
			}
			enabled := 0
			for _, e := range eps {
				if e.Enabled {
					enabled++
				}
			}
			if a.Name != "acme" || a.Status != status || enabled != endpoints {
				return fmt.Errorf("app %q %q with %d endpoints enabled, want acme %q with %d", a.Name, a.Status, enabled, status, endpoints)
			}
			a.Name = "changed by a caller"
			for i := range eps {
				eps[i].EventTypes[0] = "changed"
			}
			return nil
		}
		setStatus := func(q service.Queries, status payouts.AppStatus) error {
			a, err := q.GetApp(ctx, appID)
			if err != nil {
				return err
			}
			a.Status = status
			return q.UpdateApp(ctx, a)
		}
		err := st.InTx(ctx, func(q service.Queries) error {
			steps := []struct {
				name string
				run  func() error
			}{
				{"first read", func() error { return seen(q, "", 0) }},
				{"read again", func() error { return seen(q, "", 0) }},
				{"write both", func() error {
					return errors.Join(setStatus(q, payouts.AppInReview), q.CreateWebhookEndpoint(ctx, endpoint(1)))
				}},
				{"read the writes", func() error { return seen(q, payouts.AppInReview, 1) }},
				{"read again", func() error { return seen(q, payouts.AppInReview, 1) }},
				{"read as written, whatever callers changed", func() error {
					a, err := q.GetApp(ctx, appID)
					if err != nil {
						return err
					}
					eps, err := q.ListWebhookEndpoints(ctx, appID)
					if err == nil && (a.Name != "acme" || eps[0].EventTypes[0] != "transfer.created") {
						err = fmt.Errorf("app %q, event types %v", a.Name, eps[0].EventTypes)
					}
					return err
				}},
			}
			for _, s := range steps {
				if err := s.run(); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Jobs that write, read what they wrote and are rolled back share batches with jobs that
		// must not see it.
		errs := inParallel(40, func(i int) error {
			return st.InTx(ctx, func(q service.Queries) error {
				if i%2 == 0 {
					return seen(q, payouts.AppInReview, 1)
				}
				if err := errors.Join(setStatus(q, payouts.AppApproved), q.CreateWebhookEndpoint(ctx, endpoint(100+i))); err != nil {
					return err
				}
				if err := seen(q, payouts.AppApproved, 2); err != nil {
					return err
				}
				return errChangedMind
			})
		})
		for i, err := range errs {
			if (i%2 == 0) != (err == nil) {
				t.Errorf("job %d: %v", i, err)
			}
		}
	})
}

// holdWriters keeps the store's writers busy (one on SQLite, two on PostgreSQL, as sqldb.Open
// starts them) until the returned func is called, so that the jobs started meanwhile wait for
// them and then run in as few batches as there are writers.
func holdWriters(t *testing.T, st *store.Store) (release func()) {
	t.Helper()
	writers := 1
	if st.DB().Dialect == sqldb.Postgres {
		writers = 2
	}
	let := make(chan struct{})
	for range writers {
		// Each holder is taken by a writer the holders before it do not occupy.
		holding := make(chan struct{})
		go st.InTx(context.Background(), func(service.Queries) error { close(holding); <-let; return nil })
		<-holding
	}
	return func() { close(let) }
}

// TestUsersReadAhead: the jobs of a shared batch that said which users they will read get them
// from one read for all, and still each read answers what the transaction sees: a deleted
// user, a user of another app and a user the job itself changed read as they would alone, and a
// job rolled back takes the copies with it.
func TestUsersReadAhead(t *testing.T) {
	const jobs = 24 // so that one of PostgreSQL's two writers' batches has at least 12
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, other := newApp(t, st, "acme"), newApp(t, st, "other")
		var users []*service.UserRecord
		for n := range 22 {
			users = append(users, newUser(t, st, appID, n, fmt.Sprintf("u%d@example.com", n)))
		}
		deleted := newUser(t, st, appID, 22, "gone@example.com")
		if err := st.DeleteUser(ctx, appID, deleted.ID, t0); err != nil {
			t.Fatal(err)
		}
		elsewhere := newUser(t, st, other, 23, "elsewhere@example.com")
		// Job i reads user i of the app, but job 22 the deleted user and job 23 the other app's;
		// job 3 changes its user's status before reading it again, and job 5 is rolled back.
		target := func(i int) *service.UserRecord {
			switch i {
			case 22:
				return deleted
			case 23:
				return elsewhere
			}
			return users[i]
		}
		time.AfterFunc(100*time.Millisecond, holdWriters(t, st))
		aheadSeen := make([][]string, jobs)
		errs := inParallel(jobs, func(i int) error {
			want := target(i)
			return st.InTxWith(ctx, service.Intent{UsersToRead: []string{want.ID}}, func(q service.Queries) error {
				u, err := q.GetUser(ctx, appID, want.ID)
				aheadSeen[i] = store.UsersReadAhead(q)
				if err != nil {
					return err
				}
				if u.ID != want.ID || u.LastName != want.LastName || u.Email != want.Email {
					return fmt.Errorf("read %s %s <%s>, want %s %s <%s>", u.ID, u.LastName, u.Email, want.ID, want.LastName, want.Email)
				}
				u.LastName = "changed by a caller"
				switch i {
				case 3:
					changed := *want
					changed.Status = payouts.UserInReview
					if err := q.UpdateUser(ctx, &changed); err != nil {
						return err
					}
					if u, err = q.GetUser(ctx, appID, want.ID); err == nil && u.Status != payouts.UserInReview {
						err = fmt.Errorf("read status %q after changing it, want %q", u.Status, payouts.UserInReview)
					}
					return err
				case 5:
					return errChangedMind
				}
				return nil
			})
		})
		shared := false
		for i, err := range errs {
			switch i {
			case 22, 23:
				if !errors.Is(err, service.ErrNoRecord) {
					t.Errorf("job %d: %v, want no record", i, err)
				}
			case 5:
				if !errors.Is(err, errChangedMind) {
					t.Errorf("job %d: %v, want its own error", i, err)
				}
			default:
				if err != nil {
					t.Errorf("job %d: %v", i, err)
				}
			}
			for _, id := range aheadSeen[i] {
				if id == deleted.ID {
					t.Errorf("job %d: the deleted user was read ahead", i)
				}
			}
			shared = shared || len(aheadSeen[i]) > 1
		}
		if !shared {
			t.Error("no job found the users of its batch read ahead")
		}
	})
}

// TestUsersReadAheadSkipsLockedRows (PostgreSQL, which locks the rows read ahead as GetUser
// does): a user whose row another transaction holds is left out of a read ahead instead of
// failing it or waiting for it. Nine jobs each say they will read ten users, one of them held
// elsewhere, and each reads its own, free one: none waits for the held row.
func TestUsersReadAheadSkipsLockedRows(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		if st.DB().Dialect != sqldb.Postgres {
			return // SQLite's one writer holds every row
		}
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		var ids []string
		for n := range 10 {
			ids = append(ids, newUser(t, st, appID, n, fmt.Sprintf("u%d@example.com", n)).ID)
		}
		held, free := ids[0], ids[1:]
		holder, err := st.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		if _, err := holder.ExecContext(ctx, `SELECT id FROM users WHERE id = $1 FOR UPDATE`, held); err != nil {
			t.Fatal(err)
		}
		var released atomic.Bool
		time.AfterFunc(2*time.Second, func() { released.Store(true); holder.Rollback() })
		var mu sync.Mutex
		readAhead := map[string][]string{} // as the last run of each job found it
		errs := inParallel(len(free), func(i int) error {
			err := st.InTxWith(ctx, service.Intent{UsersToRead: ids}, func(q service.Queries) error {
				_, err := q.GetUser(ctx, appID, free[i])
				mu.Lock()
				readAhead[free[i]] = store.UsersReadAhead(q)
				mu.Unlock()
				return err
			})
			if err == nil && released.Load() {
				err = errors.New("ended only once the held row was free")
			}
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("job %d: %v", i, err)
			}
		}
		// A job can find nothing read ahead for it: PostgreSQL's two writers may run two batches
		// at once, and each skips the rows the other read ahead (and then waits for its own).
		found := false
		for id, ahead := range readAhead {
			if slices.Contains(ahead, held) {
				t.Errorf("user %s's job found the held user read ahead: %v", id, ahead)
			}
			found = found || slices.Contains(ahead, id)
		}
		if !found {
			t.Errorf("no job found its user read ahead: %v", readAhead)
		}
	})
}

// TestBatchViewBuiltBeforeJobs: a shared batch claims the keys and reads the users its jobs said
// they would claim and read before its first job runs, so every job of it finds them, whether or
// not it then claims or reads anything; keys no job took are free again once the batch commits.
func TestBatchViewBuiltBeforeJobs(t *testing.T) {
	const jobs = 24 // so that one of PostgreSQL's two writers' batches has at least 12
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		var users []*service.UserRecord
		for n := range jobs {
			users = append(users, newUser(t, st, appID, n, fmt.Sprintf("u%d@example.com", n)))
		}
		said := func(i int) *service.IdempotencyRecord {
			return &service.IdempotencyRecord{AppID: appID, Key: fmt.Sprintf("40000000-0000-4000-8000-%012d", i),
				Operation: "transfer", RequestHash: fmt.Sprint("hash ", i), Created: t0}
		}
		for _, kind := range []ledger.Kind{ledger.AppWallet, ledger.Fees} {
			if _, err := st.EnsureAccount(ctx, appID, kind, ""); err != nil {
				t.Fatal(err)
			}
		}
		time.AfterFunc(100*time.Millisecond, holdWriters(t, st))
		keysSeen, usersSeen := make([]int, jobs), make([]int, jobs)
		type ahead struct {
			accounts   int
			endpoints  bool
			postingIDs int
		}
		aheadSeen := make([]ahead, jobs)
		errs := inParallel(jobs, func(i int) error {
			intent := service.Intent{UsersToRead: []string{users[i].ID}, KeyToClaim: said(i)}
			return st.InTxWith(ctx, intent, func(q service.Queries) error {
				keysSeen[i], usersSeen[i] = len(store.KeysClaimedAhead(q)), len(store.UsersReadAhead(q))
				a := &aheadSeen[i]
				a.accounts, a.endpoints, a.postingIDs = store.ReadAhead(q, appID)
				return nil
			})
		})
		// The first job of a batch that read ahead finds, besides the keys and users, the app's
		// two accounts and its endpoints (none) read, and on PostgreSQL a posting id reserved
		// for each of its jobs (at least the 8 that made it read ahead).
		wantIDs := 0
		if st.DB().Dialect == sqldb.Postgres {
			wantIDs = 8
		}
		found := false
		for i, err := range errs {
			if err != nil {
				t.Errorf("job %d: %v", i, err)
			}
			a := aheadSeen[i]
			found = found || (keysSeen[i] >= 8 && usersSeen[i] >= 8 && a.accounts >= 2 && a.endpoints && a.postingIDs >= wantIDs)
		}
		if !found {
			t.Errorf("no job found its batch's keys claimed, users, app accounts and endpoints read and posting ids reserved before it ran: keys %v, users %v, the rest %+v",
				keysSeen, usersSeen, aheadSeen)
		}
		for i := range jobs {
			if prior, err := st.ClaimIdempotencyKey(ctx, said(i)); err != nil || prior != nil {
				t.Errorf("job %d's key after the batch: %+v, %v; want it free", i, prior, err)
			}
		}
	})
}

// TestLoneJobReadsAheadOnPostgreSQL: a job the writer takes alone builds the batch view on
// PostgreSQL, so that its key, user, app accounts, endpoints and a posting id come in one round
// trip; on SQLite, where that saves nothing, it reads for itself. Either way a key the job did
// not keep is free after it, whether it ended well or failed.
func TestLoneJobReadsAheadOnPostgreSQL(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		user := newUser(t, st, appID, 0, "lone@example.com")
		for _, kind := range []ledger.Kind{ledger.AppWallet, ledger.Fees} {
			if _, err := st.EnsureAccount(ctx, appID, kind, ""); err != nil {
				t.Fatal(err)
			}
		}
		key := &service.IdempotencyRecord{AppID: appID, Key: "50000000-0000-4000-8000-000000000001",
			Operation: "transfer", RequestHash: "hash", Created: t0}
		want := "keys 0, users 0, accounts 0, endpoints false, posting ids 0"
		if st.DB().Dialect == sqldb.Postgres {
			want = "keys 1, users 1, accounts 2, endpoints true, posting ids 1"
		}
		for _, fail := range []bool{false, true} {
			var seen string
			err := st.InTxWith(ctx, service.Intent{UsersToRead: []string{user.ID}, KeyToClaim: key}, func(q service.Queries) error {
				accounts, endpoints, ids := store.ReadAhead(q, appID)
				seen = fmt.Sprintf("keys %d, users %d, accounts %d, endpoints %v, posting ids %d",
					len(store.KeysClaimedAhead(q)), len(store.UsersReadAhead(q)), accounts, endpoints, ids)
				if fail {
					return errors.New("the job changed its mind")
				}
				return nil
			})
			if fail != (err != nil) {
				t.Fatalf("failing %v: %v", fail, err)
			}
			if seen != want {
				t.Errorf("failing %v: the job alone found %s; want %s", fail, seen, want)
			}
			if prior, err := st.ClaimIdempotencyKey(ctx, key); err != nil || prior != nil {
				t.Fatalf("failing %v: the key after the job: %+v, %v; want it free", fail, prior, err)
			}
			if err := st.ReleaseIdempotencyKey(ctx, appID, key.Key); err != nil {
				t.Fatal(err)
			}
		}
	})
}
