package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// payment is a posting of amount from one account of the app to another, of a transfer of its
// own.
func payment(appID string, from, to, amount int64) *ledger.Posting {
	return &ledger.Posting{AppID: appID, TransferID: uuid.NewString(), Debit: from, Credit: to, Amount: amount,
		Type: "balance", SourceName: "from", DestinationName: "to", Created: t0}
}

// post posts p through q as a movement of its own; the accounts listed in guarded may not be
// overdrawn.
func post(ctx context.Context, q service.PlanWrites, p *ledger.Posting, guarded ...int64) error {
	return postChanges(ctx, q, []ledger.Change{{Op: ledger.OpPost, Posting: p}}, guarded...)
}

// postChanges posts changes through q as one movement; the accounts listed in guarded may not
// be overdrawn.
func postChanges(ctx context.Context, q service.PlanWrites, changes []ledger.Change, guarded ...int64) error {
	m, err := ledger.NewMovement(changes, t0, func(id int64) bool { return slices.Contains(guarded, id) })
	if err != nil {
		return err
	}
	return q.Apply(ctx, &service.Plan{Movement: &m})
}

// addPayment adds amount to the user's 2026 payments through a plan in q and returns their total
// as the transaction has it.
func addPayment(ctx context.Context, q service.Queries, appID, userID string, amount payouts.Money) (payouts.Money, error) {
	err := q.Apply(ctx, &service.Plan{Payments: []service.YearlyPayment{{AppID: appID, UserID: userID, Year: 2026, Amount: amount}}})
	if err != nil {
		return 0, err
	}
	return q.YearlyPayments(ctx, appID, userID, 2026)
}

// TestAppAccountsReadTogether: in a write transaction, the first account of an app itself that
// a job asks for brings every other one into the batch in the same statement (a payout posts to
// the app's wallet, the rail's clearing account and fees), but not the app's users' wallets nor
// another app's accounts; each is then found as it is, and one the app does not have yet is
// made.
func TestAppAccountsReadTogether(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, otherApp := newApp(t, st, "ours"), newApp(t, st, "theirs")
		own := []struct {
			kind ledger.Kind
			ref  string
		}{
			{ledger.AppWallet, ""}, {ledger.Clearing, "ach"}, {ledger.Clearing, "paypal"}, {ledger.Fees, ""},
			{ledger.Escrow, ""}, {ledger.External, "bank"},
		}
		ids := map[string]int64{}
		var want []string
		for _, a := range own {
			acct, err := st.EnsureAccount(ctx, appID, a.kind, a.ref)
			if err != nil {
				t.Fatal(err)
			}
			ids[string(a.kind)+"/"+a.ref] = acct.ID
			want = append(want, appID+" "+string(a.kind)+" "+a.ref)
		}
		slices.Sort(want)
		for _, a := range []struct {
			app, ref string
			kind     ledger.Kind
		}{{appID, userID(1), ledger.UserWallet}, {otherApp, "", ledger.AppWallet}, {otherApp, "", ledger.Fees}} {
			if _, err := st.EnsureAccount(ctx, a.app, a.kind, a.ref); err != nil {
				t.Fatal(err)
			}
		}
		err := st.InTx(ctx, func(q service.Queries) error {
			if _, err := q.FindAccount(ctx, appID, ledger.Fees, ""); err != nil {
				return err
			}
			if got := store.AccountsRead(q); !slices.Equal(got, want) {
				t.Errorf("after one account, the batch read\n%v\nwant\n%v", got, want)
			}
			for _, a := range own {
				got, err := q.FindAccount(ctx, appID, a.kind, a.ref)
				if err != nil {
					return err
				}
				if got.ID != ids[string(a.kind)+"/"+a.ref] || got.Kind != a.kind || got.Ref != a.ref || got.AppID != appID {
					t.Errorf("FindAccount(%s, %q) = %+v", a.kind, a.ref, got)
				}
			}
			if _, err := q.FindAccount(ctx, appID, ledger.Clearing, "venmo"); !errors.Is(err, service.ErrNoRecord) {
				t.Errorf("FindAccount of an account the app lacks = %v, want ErrNoRecord", err)
			}
			made, err := q.EnsureAccount(ctx, appID, ledger.Clearing, "venmo")
			if err != nil {
				return err
			}
			if made.Kind != ledger.Clearing || made.Ref != "venmo" || made.AppID != appID {
				t.Errorf("EnsureAccount made %+v", made)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestSettleOnce: a movement settles pending postings all or none, those it commits and those it
// voids alike, and one no longer pending refuses the whole movement with ErrNoRecord: a
// reservation is settled once only.
func TestSettleOnce(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, _, wallet := fundedWallet(t, st, 100)
		fees, err := st.EnsureAccount(ctx, appID, ledger.Fees, "")
		if err != nil {
			t.Fatal(err)
		}
		inTx := func(changes ...ledger.Change) error {
			return st.InTx(ctx, func(q service.Queries) error { return postChanges(ctx, q, changes, wallet.ID) })
		}
		pending := make([]*ledger.Posting, 4)
		for i := range pending {
			pending[i] = payment(appID, wallet.ID, fees.ID, int64(i+1))
			if err := inTx(ledger.Change{Op: ledger.OpReserve, Posting: pending[i]}); err != nil {
				t.Fatal(err)
			}
		}
		change := func(op ledger.Op, i int) ledger.Change {
			p := *pending[i]
			return ledger.Change{Op: op, Posting: &p}
		}
		steps := []struct {
			name    string
			changes []ledger.Change
			want    error
		}{
			{"commit two, void one", []ledger.Change{change(ledger.OpCommit, 0), change(ledger.OpCommit, 1), change(ledger.OpVoid, 2)}, nil},
			{"commit one again", []ledger.Change{change(ledger.OpCommit, 0)}, service.ErrNoRecord},
			{"one pending, one voided", []ledger.Change{change(ledger.OpCommit, 3), change(ledger.OpVoid, 2)}, service.ErrNoRecord},
			{"the one still pending", []ledger.Change{change(ledger.OpVoid, 3)}, nil},
		}
		for _, step := range steps {
			if err := inTx(step.changes...); !errors.Is(err, step.want) {
				t.Fatalf("%s: %v, want %v", step.name, err, step.want)
			}
		}
		ids := make([]string, len(pending))
		for i, p := range pending {
			ids[i] = p.TransferID
		}
		stored, err := st.PostingsOfTransfers(ctx, appID, ids)
		if err != nil {
			t.Fatal(err)
		}
		states := map[int64]ledger.State{}
		for _, p := range stored {
			states[p.ID] = p.State
		}
		for i, want := range []ledger.State{ledger.Posted, ledger.Posted, ledger.Voided, ledger.Voided} {
			if got := states[pending[i].ID]; got != want {
				t.Errorf("posting %d is %s, want %s", i, got, want)
			}
		}
		w, err := st.FindAccount(ctx, appID, ledger.AppWallet, "")
		if err != nil {
			t.Fatal(err)
		}
		if w.Balance() != 97 || w.DebitsPending != 0 {
			t.Errorf("wallet balance %d with %d pending, want 97 with none", w.Balance(), w.DebitsPending)
		}
	})
}

// TestPostAllOrNone: a movement of several accounts, which PostgreSQL writes in one statement,
// is posted all or none: one guarded delta that would overdraw, or one naming no account,
// refuses the lot.
func TestPostAllOrNone(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 100)
		fees, err := st.EnsureAccount(ctx, appID, ledger.Fees, "")
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name                 string
			posting              *ledger.Posting
			want                 error
			wantWallet, wantFees int64
		}{
			{"one overdraws", payment(appID, wallet.ID, bank.ID, 101), service.ErrOverdraft, 100, 0},
			{"one names no account", payment(appID, wallet.ID, 1<<40, 10), service.ErrNoRecord, 100, 0},
			{"all within the balance", payment(appID, wallet.ID, fees.ID, 30), nil, 70, 30},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := st.InTx(ctx, func(q service.Queries) error { return post(ctx, q, tc.posting, wallet.ID) })
				if !errors.Is(err, tc.want) {
					t.Fatalf("Post = %v, want %v", err, tc.want)
				}
				w, _ := st.FindAccount(ctx, appID, ledger.AppWallet, "")
				f, _ := st.FindAccount(ctx, appID, ledger.Fees, "")
				if w.Balance() != tc.wantWallet || f.Balance() != tc.wantFees {
					t.Fatalf("wallet %d, fees %d; want %d, %d", w.Balance(), f.Balance(), tc.wantWallet, tc.wantFees)
				}
			})
		}
	})
}

// TestRefusedMovementLeavesNothing: a movement refused for its second delta, which would overdraw
// a guarded account, leaves nothing behind in a batch whose jobs commit, its own job among them:
// not the first delta (checked alone it passes), nor its new postings, nor the state of the
// pending posting it settles. The other jobs' movements, and the refused job's next one, stand.
func TestRefusedMovementLeavesNothing(t *testing.T) {
	const jobs = 24 // so that one of PostgreSQL's two writers' batches has at least 12
	refusing := func(i int) bool { return i%6 == 0 }
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		// Made in this order, so that the movement's deltas come wallet (passes), then payee
		// (overdraws), then fees and clearing.
		appID, bank, wallet := fundedWallet(t, st, 1000)
		payee, err := st.EnsureAccount(ctx, appID, ledger.UserWallet, userID(1))
		if err != nil {
			t.Fatal(err)
		}
		fees, err := st.EnsureAccount(ctx, appID, ledger.Fees, "")
		if err != nil {
			t.Fatal(err)
		}
		clearing, err := st.EnsureAccount(ctx, appID, ledger.Clearing, "ach")
		if err != nil {
			t.Fatal(err)
		}
		reserved := make([]*ledger.Posting, jobs)
		err = st.InTx(ctx, func(q service.Queries) error {
			if err := post(ctx, q, payment(appID, bank.ID, payee.ID, 10)); err != nil {
				return err
			}
			for i := range jobs {
				if refusing(i) {
					reserved[i] = payment(appID, wallet.ID, clearing.ID, 20)
					if err := postChanges(ctx, q, []ledger.Change{{Op: ledger.OpReserve, Posting: reserved[i]}}, wallet.ID); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		refused := make([][]*ledger.Posting, jobs)
		var mu sync.Mutex
		committers := map[any]int{} // by batch, its jobs that posted a movement
		refusedIn := map[any]int{}  // by batch, its jobs refused a movement
		time.AfterFunc(100*time.Millisecond, holdWriters(t, st))
		errs := inParallel(jobs, func(i int) error {
			return st.InTx(ctx, func(q service.Queries) error {
				if refusing(i) {
					settled := *reserved[i]
					refused[i] = []*ledger.Posting{payment(appID, wallet.ID, fees.ID, 30), payment(appID, payee.ID, fees.ID, 11)}
					err := postChanges(ctx, q, []ledger.Change{{Op: ledger.OpCommit, Posting: &settled},
						{Op: ledger.OpPost, Posting: refused[i][0]}, {Op: ledger.OpPost, Posting: refused[i][1]}}, wallet.ID, payee.ID)
					if !errors.Is(err, service.ErrOverdraft) {
						t.Errorf("job %d: the movement overdrawing the payee: %v, want an overdraft", i, err)
					}
					mu.Lock()
					refusedIn[store.BatchOf(q)]++
					mu.Unlock()
				}
				if err := post(ctx, q, payment(appID, wallet.ID, fees.ID, 1), wallet.ID); err != nil {
					return err
				}
				mu.Lock()
				committers[store.BatchOf(q)]++
				mu.Unlock()
				return nil
			})
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("job %d: %v", i, err)
			}
		}
		shared := false
		for b, n := range refusedIn {
			shared = shared || committers[b] > n
		}
		if !shared {
			t.Fatal("no refused movement was in a batch with another job")
		}
		want := map[*ledger.Account]int64{wallet: 1000 - jobs, payee: 10, fees: jobs, clearing: 0}
		for a, balance := range want {
			got, err := st.FindAccount(ctx, appID, a.Kind, a.Ref)
			if err != nil || got.Balance() != balance {
				t.Errorf("%s account: %+v (%v), want balance %d", a.Kind, got, err, balance)
			}
		}
		for i := range jobs {
			if !refusing(i) {
				continue
			}
			for _, p := range refused[i] {
				if lines, err := st.PostingsOfTransfers(ctx, appID, []string{p.TransferID}); err != nil || len(lines) != 0 {
					t.Errorf("job %d: the refused movement left postings %+v (%v)", i, lines, err)
				}
			}
			lines, err := st.PostingsOfTransfers(ctx, appID, []string{reserved[i].TransferID})
			if err != nil || len(lines) != 1 || lines[0].State != ledger.Pending || !lines[0].Posted.IsZero() {
				t.Errorf("job %d: the posting the refused movement settled is %+v (%v), want it pending", i, lines, err)
			}
		}
		accounts, postings, err := st.LedgerSnapshot(ctx, appID)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range ledger.Check(accounts, postings) {
			t.Errorf("ledger: %v", err)
		}
	})
}
