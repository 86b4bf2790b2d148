package service_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// The crash-point tests kill a worker at each point of the submission protocol
// (submission.go), start a new process on the same database, and check that every payout
// reaches its rail under one idempotency key, is accepted once, settles once, and leaves the
// ledger balanced and the wallets right to the cent. Each runs on SQLite and on PostgreSQL.

const (
	deposit      = 1000000
	payoutAmount = 10000 // ten of them stay under the 1099 threshold
	paypalFee    = 25
	// pastLease is longer than any worker's lease on a payout.
	pastLease = 2 * time.Minute
	// pastRetry is longer than a payout waits after its rail could not be reached.
	pastRetry = 31 * time.Second
	// whsec is the Stripe rail's webhook signing secret in these tests.
	whsec = "whsec_test_secret"
)

// railCase is a rail the crash-point tests run against: the counting rail alone (PayPal), or in
// front of a real rail talking to its provider's double (Stripe's ACH, PayPal's Payouts), where
// the provider's idempotency (Stripe's Idempotency-Key; PayPal's PayPal-Request-Id and
// sender_batch_id) is all that keeps a payout paid once.
type railCase struct {
	name   string
	method payouts.AddPayoutMethodRequest
	fee    payouts.Money
	stripe bool
	paypal bool
	// forget makes the PayPal double forget PayPal-Request-Id: only sender_batch_id and the
	// duplicate answer's link to the original batch keep the payout paid once.
	forget bool
}

var railCases = []railCase{
	{"counting", payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"}, paypalFee, false, false, false},
	{"stripe", payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH, RoutingNumber: "110000000",
		AccountNumber: "000123456789", AccountType: payouts.AccountChecking}, 0, true, false, false},
	{"paypal", payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"}, paypalFee, false, true, false},
	{"paypal without request id replay", payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"},
		paypalFee, false, true, true},
}

// newRailEnv is an env paying out through a countingRail, with a PayPal method for its user.
func newRailEnv(t *testing.T, dsn string) (*env, *countingRail) {
	t.Helper()
	return newRailEnvFor(t, dsn, railCases[0])
}

// newRailEnvFor is an env paying out through rc's rail, with rc's method for its user. The
// Stripe double posts a payment settleDelay after it was made.
func newRailEnvFor(t *testing.T, dsn string, rc railCase) (*env, *countingRail) {
	t.Helper()
	rail := newCountingRail()
	e := newEnvOn(t, dsn, rail.rails(), deposit)
	rail.clock = e.clock // the env's clock is made with the env
	if rc.stripe {
		rail.double = stripetest.New(t, "", e.clock.Now)
		rail.double.PostAfter = settleDelay
		inner, err := stripe.New(stripe.Config{APIKey: "sk_test_123", FinancialAccount: "fa_123", WebhookSecret: whsec,
			URL: rail.double.URL, Poll: settleDelay, Clock: e.clock})
		if err != nil {
			t.Fatal(err)
		}
		rail.inner = inner
	}
	if rc.paypal {
		rail.paypal = paypaltest.New(t)
		if rc.forget {
			rail.paypal.ForgetRequestIDs()
		}
		client, err := paypal.New(paypal.Config{BaseURL: rail.paypal.URL, ClientID: paypaltest.ClientID,
			ClientSecret: paypaltest.ClientSecret, HTTP: rail.paypal.Client(), Clock: e.clock})
		if err != nil {
			t.Fatal(err)
		}
		rail.inner = client.Rails()[payouts.PlatformPayPal]
	}
	m := e.addMethod(t, e.user.ID, rc.method)
	rail.payout = payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: payoutAmount, Platform: rc.method.Platform,
		AccountID: m.ID, Fund: true}
	rail.fee = rc.fee
	return e, rail
}

// createPayout makes a funded payout whose own submission finds the rail unreachable, so the
// worker is the one to submit it. The same key always names the same payout.
func createPayout(t *testing.T, e *env, rail *countingRail, key string) *payouts.Transfer {
	t.Helper()
	rail.then(unreachable)
	req := rail.payout
	req.IdempotencyKey = key
	tr, err := e.svc.CreatePayout(e.ctx, e.app, req)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != payouts.TransferPending || tr.ExternalData.ExternalID != "" {
		t.Fatalf("new payout is %s with external id %q, want pending and not yet submitted", tr.Status, tr.ExternalData.ExternalID)
	}
	return tr
}

// settleAll lets the workers run until nothing is due, over enough time for every lease and
// settlement delay to pass.
func settleAll(t *testing.T, e *env) {
	t.Helper()
	for range 3 {
		e.clock.Advance(pastLease)
		if _, err := e.svc.SettleDue(e.ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
}

// checkPaidOnce checks that each payout was accepted by the rail once and completed once, and
// the wallets: the app paid every payout and its fee, the user kept nothing.
func checkPaidOnce(t *testing.T, e *env, rail *countingRail, ids []string) {
	t.Helper()
	if accepted, _ := rail.submissions(""); accepted != len(ids) {
		t.Errorf("the rail accepted %d distinct submissions, want %d", accepted, len(ids))
	}
	for _, id := range ids {
		tr := e.transfer(t, id)
		if tr.Status != payouts.TransferCompleted || tr.ExternalData.ExternalID != rail.receipt(id).ExternalID {
			t.Errorf("payout %s is %s with external id %q, want %q", id, tr.Status, tr.ExternalData.ExternalID, rail.receipt(id).ExternalID)
		}
		if rail.double != nil && rail.double.Creations(id) != 1 {
			t.Errorf("Stripe made %d payments for payout %s, want 1", rail.double.Creations(id), id)
		}
		if rail.paypal != nil {
			rail.paypal.Check(t)
		}
		completed := 0
		for _, c := range tr.StatusHistory {
			if c.Status == payouts.TransferCompleted {
				completed++
			}
		}
		if completed != 1 {
			t.Errorf("payout %s completed %d times", id, completed)
		}
	}
	if rail.paypal != nil && rail.paypal.Batches() != len(ids) {
		t.Errorf("PayPal made %d batches, want %d", rail.paypal.Batches(), len(ids))
	}
	e.checkLedger(t)
	app, user := e.wallets(t, e.user.ID)
	if want := deposit - payouts.Money(len(ids))*(payoutAmount+rail.fee); app.Amount != want || app.Reserved() != 0 {
		t.Errorf("app wallet %+v, want %v and nothing reserved", app, want)
	}
	if user.Amount != 0 {
		t.Errorf("user wallet %+v, want empty", user)
	}
}

func TestSubmissionCrashPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("a fault test: the process dies at each step of a submission")
	}
	tests := []struct {
		name      string
		crash     railStep
		recorded  bool // the receipt was recorded before the process died
		wantCalls int  // Submit calls that reached the rail with the payout's key
	}{
		{"before the rail call", crashBefore, false, 1},
		{"after the rail call, before the record", crashAfter, false, 2},
		{"after the record", accept, true, 1},
	}
	for _, tt := range tests {
		for _, rc := range railCases {
			t.Run(tt.name+"/"+rc.name, func(t *testing.T) {
				pgtest.EachEngine(t, func(t *testing.T, dsn string) {
					e, rail := newRailEnvFor(t, dsn, rc)
					key := "6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7"
					tr := createPayout(t, e, rail, key)

					e.clock.Advance(pastRetry)
					ctx, die := context.WithCancel(e.ctx)
					rail.die = die
					rail.then(tt.crash)
					_, err := e.svc.SettleDue(ctx, 100)
					die()
					if (err != nil) == tt.recorded {
						t.Fatalf("the worker's step returned %v; a crash should end it with an error", err)
					}

					e.open(t) // the process died; a new one takes over the database
					if got := e.transfer(t, tr.ID); (got.ExternalData.ExternalID != "") != tt.recorded {
						t.Fatalf("after the crash the payout's external id is %q, recorded want %v", got.ExternalData.ExternalID, tt.recorded)
					}
					// The client retries its request: the same payout, not a second one, and no
					// rail call while the dead worker's lease lasts.
					again := createPayoutReplay(t, e, rail, key)
					if again.ID != tr.ID {
						t.Fatalf("the retried request made payout %s, want %s", again.ID, tr.ID)
					}
					settleAll(t, e)

					if _, calls := rail.submissions(tr.ID); calls != tt.wantCalls {
						t.Errorf("%d Submit calls reached the rail, want %d", calls, tt.wantCalls)
					}
					checkPaidOnce(t, e, rail, []string{tr.ID})
				})
			})
		}
	}
}

// createPayoutReplay repeats createPayout's request with its idempotency key.
func createPayoutReplay(t *testing.T, e *env, rail *countingRail, key string) *payouts.Transfer {
	t.Helper()
	req := rail.payout
	req.IdempotencyKey = key
	tr, err := e.svc.CreatePayout(e.ctx, e.app, req)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestSubmissionWorkersRace runs two processes' workers at once over the same due payouts: each
// payout is claimed by one of them, submitted once and settled once.
func TestSubmissionWorkersRace(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, rail := newRailEnv(t, dsn)
		var ids []string
		for range 10 {
			ids = append(ids, createPayout(t, e, rail, "").ID)
		}
		first := e.svc
		e.open(t)
		workers := []*service.Service{first, e.svc}
		for _, step := range []string{"submit", "settle"} {
			e.clock.Advance(pastLease)
			var wg sync.WaitGroup
			counts := make([]int, len(workers))
			for i, w := range workers {
				wg.Go(func() {
					n, err := w.SettleDue(e.ctx, 100)
					if err != nil {
						t.Error(err)
					}
					counts[i] = n
				})
			}
			wg.Wait()
			if counts[0]+counts[1] != len(ids) {
				t.Fatalf("%s: the workers handled %v payouts, want %d in all", step, counts, len(ids))
			}
		}
		for _, id := range ids {
			if _, calls := rail.submissions(id); calls != 1 {
				t.Errorf("payout %s reached the rail %d times, want once", id, calls)
			}
		}
		checkPaidOnce(t, e, rail, ids)
	})
}

// TestSubmissionClaimedTogether has a worker claim due payouts several at a time and find the
// rail unreachable for one of them: the others are submitted, and that one is tried again after
// the retry delay.
func TestSubmissionClaimedTogether(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, rail := newRailEnv(t, dsn)
		const count = 20 // more than one claim takes
		var ids []string
		for range count {
			rail.then(unreachable) // the request's own try, so that the worker submits it
			tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: payoutAmount,
				Platform: payouts.PlatformPayPal, Fund: true, TaxExempt: true})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tr.ID)
		}
		e.clock.Advance(pastRetry)
		rail.then(unreachable)
		if n, err := e.svc.SettleDue(e.ctx, 100); n != count || err != nil {
			t.Fatalf("SettleDue = %d, %v; want %d payouts moved on", n, err, count)
		}
		if accepted, _ := rail.submissions(""); accepted != count-1 {
			t.Fatalf("the rail accepted %d payouts, want all but one of %d", accepted, count)
		}
		if n, err := e.svc.SettleDue(e.ctx, 100); n != 0 || err != nil {
			t.Fatalf("before the retry delay SettleDue = %d, %v; want nothing due", n, err)
		}
		settleAll(t, e)
		checkPaidOnce(t, e, rail, ids)
	})
}

// TestClaimPaysEachUserTheirMethod: a worker's claim reads the methods of every payout it
// claimed in one query; each payout still goes to the method its request chose for it (by
// platform, by default or by id), never to another user's, a user paid twice included.
func TestClaimPaysEachUserTheirMethod(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, rail := newRailEnv(t, dsn)
		type payee struct {
			req  payouts.CreatePayoutRequest
			want string // the method id the rail must be handed
		}
		var payees []payee
		for i := range 4 {
			u := e.newUser(t, fmt.Sprintf("payee%d@example.com", i), fmt.Sprintf("415555020%d", i))
			paypal := e.addMethod(t, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
				Email: fmt.Sprintf("paypal%d@example.com", i)})
			venmo := e.addMethod(t, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformVenmo,
				Handle: fmt.Sprintf("venmo-%d", i)})
			req := payouts.CreatePayoutRequest{UserID: u.ID, Amount: payoutAmount, Fund: true, TaxExempt: true}
			want := paypal.ID
			switch i {
			case 0: // the newest of the platform
				req.Platform = payouts.PlatformPayPal
			case 1: // and the same user paid again, to the other platform
				req.Platform, want = payouts.PlatformVenmo, venmo.ID
				again := req
				again.Platform = payouts.PlatformPayPal
				payees = append(payees, payee{again, paypal.ID})
			case 2: // the user's default: the first method saved
				req.Platform = payouts.PlatformDefault
			case 3: // named by id
				req.Platform, req.AccountID = payouts.PlatformPayPal, paypal.ID
			}
			payees = append(payees, payee{req, want})
		}
		var ids []string
		for _, p := range payees {
			rail.then(unreachable) // the request's own try, so that the worker claims them together
			tr, err := e.svc.CreatePayout(e.ctx, e.app, p.req)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tr.ID)
		}
		e.clock.Advance(pastRetry)
		if n, err := e.svc.SettleDue(e.ctx, 100); n != len(payees) || err != nil {
			t.Fatalf("SettleDue = %d, %v; want %d payouts moved on", n, err, len(payees))
		}
		for i, p := range payees {
			if got := rail.methods[ids[i]]; got != p.want {
				t.Errorf("payout %d (%s) went to method %q, want %q", i, p.req.Platform, got, p.want)
			}
		}
		settleAll(t, e)
		checkPaidOnce(t, e, rail, ids)
	})
}

// TestSubmissionLeaseLost has a worker's rail call outlast its lease: another process takes the
// payout over, the first worker's late answer is dropped, and only the lease holder's counts.
func TestSubmissionLeaseLost(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, rail := newRailEnv(t, dsn)
		tr := createPayout(t, e, rail, "")
		e.clock.Advance(pastRetry)
		first, second := make(chan struct{}), make(chan struct{})
		rail.holdUntil(first, second)
		step := func(w *service.Service) chan error {
			done := make(chan error, 1)
			go func() { _, err := w.SettleDue(e.ctx, 1); done <- err }()
			<-rail.entered
			return done
		}
		slow := step(e.svc)
		e.clock.Advance(pastLease)
		e.open(t)
		holder := step(e.svc)

		close(first)
		if err := <-slow; err != nil {
			t.Fatalf("the slow worker: %v", err)
		}
		if r := record(t, e, tr.ID); r.RailState != service.RailSubmitting || r.ExternalData.ExternalID != "" {
			t.Fatalf("the late answer of a lost lease was recorded: %s, external id %q", r.RailState, r.ExternalData.ExternalID)
		}
		close(second)
		if err := <-holder; err != nil {
			t.Fatalf("the lease holder: %v", err)
		}
		if r := record(t, e, tr.ID); r.RailState != service.RailSubmitted || r.ExternalData.ExternalID != "cr_"+tr.ID {
			t.Fatalf("the lease holder's answer was not recorded: %s, external id %q", r.RailState, r.ExternalData.ExternalID)
		}
		settleAll(t, e)
		if _, calls := rail.submissions(tr.ID); calls != 2 {
			t.Errorf("%d Submit calls reached the rail, want 2 (one per worker)", calls)
		}
		checkPaidOnce(t, e, rail, []string{tr.ID})
	})
}

// record reads a transfer as stored, with its rail bookkeeping.
func record(t *testing.T, e *env, id string) *service.TransferRecord {
	t.Helper()
	r, err := e.st.GetTransfer(e.ctx, e.app, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSubmissionRequestCrashPoints kills the request itself after its transaction committed the
// payout claimed by the request: before its rail call, and after the rail accepted but before the
// receipt was recorded. While the request's lease lasts neither a worker nor the client's retry
// calls the rail; once it has run out a worker submits under the same key, and it is paid once.
func TestSubmissionRequestCrashPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("a fault test: the process dies at each step of a submission")
	}
	for _, tt := range []struct {
		name      string
		crash     railStep
		wantCalls int // Submit calls that reached the rail with the payout's key
	}{
		{"before the rail call", crashBefore, 1},
		{"after the rail call, before the record", crashAfter, 2},
	} {
		for _, rc := range railCases {
			t.Run(tt.name+"/"+rc.name, func(t *testing.T) {
				pgtest.EachEngine(t, func(t *testing.T, dsn string) {
					e, rail := newRailEnvFor(t, dsn, rc)
					key := "0c6d0e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f"
					ctx, die := context.WithCancel(e.ctx)
					rail.die = die
					rail.then(tt.crash)
					req := rail.payout
					req.IdempotencyKey = key
					e.svc.CreatePayout(ctx, e.app, req) // dies on its way out
					die()

					e.open(t) // the process died; a new one takes over the database
					e.clock.Advance(pastRetry)
					if _, err := e.svc.SettleDue(e.ctx, 100); err != nil {
						t.Fatal(err)
					}
					tr := createPayoutReplay(t, e, rail, key)
					if _, calls := rail.submissions(tr.ID); calls != tt.wantCalls-1 || tr.Status != payouts.TransferPending {
						t.Fatalf("while the dead request's lease lasts: %d rail calls, payout %s; want only the dead request's (%d) and pending",
							calls, tr.Status, tt.wantCalls-1)
					}
					settleAll(t, e)

					if _, calls := rail.submissions(tr.ID); calls != tt.wantCalls {
						t.Errorf("%d Submit calls reached the rail, want %d", calls, tt.wantCalls)
					}
					checkPaidOnce(t, e, rail, []string{tr.ID})
				})
			})
		}
	}
}

// TestSubmissionUnresolved: PayPal forgot the first request's PayPal-Request-Id and its
// duplicate answer names no original batch, so the payout's outcome cannot be learnt by reading.
// The worker neither submits it again nor loops: the payout waits pending for an operator, its
// reason shown and counted for the alert, until PayPal's notification settles it, once.
func TestSubmissionUnresolved(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e, rail := newRailEnvFor(t, dsn, railCases[3])
		rail.paypal.OmitDuplicateLink()
		tr := createPayout(t, e, rail, "")
		e.clock.Advance(pastRetry)
		ctx, die := context.WithCancel(e.ctx)
		rail.die = die
		rail.then(crashAfter)
		e.svc.SettleDue(ctx, 100)
		die()
		e.open(t)
		settleAll(t, e)
		settleAll(t, e)

		if _, calls := rail.submissions(tr.ID); calls != 2 {
			t.Errorf("%d Submit calls reached the rail, want 2: the lost one and the one that met the duplicate", calls)
		}
		r := record(t, e, tr.ID)
		if r.Status != payouts.TransferPending || r.RailState != service.RailNeedsOperator || r.FailureReason == "" {
			t.Fatalf("the payout is %s in rail state %q, reason %q; want pending, waiting for an operator, with the reason",
				r.Status, r.RailState, r.FailureReason)
		}
		if _, _, waiting, err := e.st.WorkerBacklog(e.ctx, e.clock.Now()); err != nil || waiting != 1 {
			t.Fatalf("WorkerBacklog counts %d payouts waiting for an operator (%v), want 1", waiting, err)
		}
		if oldest, _, _, _ := e.st.WorkerBacklog(e.ctx, e.clock.Now()); !oldest.IsZero() {
			t.Errorf("the payout waiting for an operator is counted as due since %v", oldest)
		}

		if err := e.svc.ReportRailOutcome(e.ctx, payouts.PlatformPayPal, service.RailReport{TransferID: tr.ID,
			ExternalID: "PB000001", Outcome: service.RailOutcome{Settled: true}}); err != nil {
			t.Fatal(err)
		}
		rail.receipts[tr.ID] = service.RailReceipt{ExternalID: "PB000001"} // the batch the notification named
		if got := e.transfer(t, tr.ID); got.FailureReason != "" {
			t.Errorf("the settled payout keeps the reason %q", got.FailureReason)
		}
		checkPaidOnce(t, e, rail, []string{tr.ID})
	})
}
