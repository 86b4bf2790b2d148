package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/disburse/disburse/payouts"
)

// A payout reaches its rail outside any database transaction, so that a slow rail holds neither
// SQLite's write lock nor PostgreSQL's wallet row locks. The request books the reservations and
// writes the payout pending with RailState submitting, due now, and already claimed by itself
// (step 1 below, in the same transaction: claimForRequest); once that commits, the request runs
// steps 2 and 3 (submitClaimed), so the API answers with the rail's immediate verdict. A worker,
// for each due payout nobody holds:
//
//  1. claims it in one transaction: a lease (LeaseUntil) and one more Attempts, its claim token;
//  2. calls the rail with no transaction open: Submit with the transfer id as idempotency key
//     while submitting, Outcome once submitted;
//  3. records the answer in another transaction, only if the payout is still pending in the same
//     rail state with the same Attempts: otherwise its lease ran out and another worker owns it.
//
// A worker or request that dies before or during the call leaves the payout leased; once the lease
// runs out a worker claims it and calls the rail again with the same key, which the rail answers
// with the same receipt, so a payout is never lost nor submitted twice.

// RailState is how far a pending payout has got with its rail.
type RailState string

const (
	// RailSubmitting is a payout written but not yet acknowledged by its rail.
	RailSubmitting RailState = "submitting"
	// RailSubmitted is a payout the rail gave a receipt for, waiting for its outcome.
	RailSubmitted RailState = "submitted"
	// RailNeedsOperator is a payout whose rail could not learn its outcome (RailUnresolved): no
	// worker claims it again.
	RailNeedsOperator RailState = "needs_operator"
)

// A claimed payout belongs to the worker calling its rail for Config.RailLease; the call itself
// is cut off at half of it, so a live worker records its answer before anyone takes over.

// submitRetry is how long a payout waits before its rail is asked again after it could not be
// reached.
const submitRetry = 30 * time.Second

// railCall is a payout a worker has claimed, and the rail's answer once called.
type railCall struct {
	t       *TransferRecord
	method  *PayoutMethodRecord
	receipt RailReceipt
	outcome RailOutcome
	err     error
	// recorded is the payout as record wrote it when the answer left it pending and its
	// postings alone (a receipt, or a rail to try again later); nil otherwise.
	recorded *TransferRecord
}

// claimBatch is how many due payouts a worker claims in one transaction. Their rails are then
// called side by side, each within half its lease, and their answers recorded in transactions of
// their own, which the writer commits together.
const claimBatch = 16

// SettleDue moves on the payouts whose time has come, each by the three steps above: submits
// those submitting and settles (or fails) those submitted. It returns how many it handled.
// Several workers, in one process or many, may run it at once.
func (s *Service) SettleDue(ctx context.Context, max int) (int, error) {
	moved := 0
	for moved < max {
		calls, claimed, err := s.claimDue(ctx, min(max-moved, claimBatch))
		if err != nil || claimed == 0 {
			return moved, err
		}
		errs := make([]error, len(calls))
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Go(func() { errs[i] = s.callAndRecord(ctx, c) })
		}
		wg.Wait()
		moved += claimed
		if err := errors.Join(errs...); err != nil {
			return moved, err
		}
	}
	return moved, nil
}

// claimDue claims up to limit due payouts in one transaction (step 1) and says how many it found.
// A payout whose method was removed is failed instead, and has no call.
func (s *Service) claimDue(ctx context.Context, limit int) (calls []*railCall, claimed int, err error) {
	err = s.inTx(ctx, func(q *Tx) error {
		calls = calls[:0] // the transaction may run more than once
		now := s.now()
		due, err := q.ClaimDuePayouts(ctx, now, now.Add(s.cfg.RailLease), limit)
		if err != nil {
			return err
		}
		claimed = len(due)
		ts := make([]*TransferRecord, len(due))
		for i := range due {
			ts[i] = &due[i]
		}
		methods, err := s.railMethodsOrFail(ctx, q, ts, payouts.TransferPending)
		if err != nil {
			return err
		}
		for i, method := range methods {
			if method != nil {
				calls = append(calls, &railCall{t: ts[i], method: method})
			}
		}
		return nil
	})
	return calls, claimed, err
}

// callAndRecord calls a claimed payout's rail and records the answer (steps 2 and 3).
func (s *Service) callAndRecord(ctx context.Context, c *railCall) error {
	s.callRail(ctx, c)
	return s.inTx(ctx, func(q *Tx) error { return s.record(ctx, q, c) })
}

// claimForRequest makes a payout written due now the writing request's: one attempt and a lease,
// as a worker's claim would write, so that no worker takes it while the request calls the rail.
// Claiming it in the transaction that writes it saves the request a transaction of its own.
func (s *Service) claimForRequest(t *TransferRecord) {
	if t.Status == payouts.TransferPending && t.RailState == RailSubmitting {
		t.Attempts, t.LeaseUntil = 1, s.now().Add(s.cfg.RailLease)
	}
}

// submitClaimed runs steps 2 and 3 for a payout a request has just committed as claimed by
// itself (claimForRequest), read back by its id. A payout held for review, or no longer the
// request's (its lease ran out and a worker took it), is left alone; an error leaves it to the
// worker.
func (s *Service) submitClaimed(ctx context.Context, appID, id string) {
	t, err := s.store.GetTransfer(ctx, appID, id)
	if err != nil {
		s.log.Warn("submitting a new payout failed; the worker will", "transfer", id, "err", err)
		return
	}
	if !claimedByRequest(t, s.now()) {
		return
	}
	method, err := s.railMethod(ctx, s.store, t)
	if err != nil {
		s.log.Warn("submitting a new payout failed; the worker will", "transfer", id, "err", err)
		return
	}
	s.submit(ctx, t, method)
}

// claimedByRequest reports whether t, as its request committed it, is still that request's to
// submit: pending with its first lease, which no worker takes over before it runs out.
func claimedByRequest(t *TransferRecord, now time.Time) bool {
	return t.Status == payouts.TransferPending && t.RailState == RailSubmitting && t.Attempts == 1 &&
		t.LeaseUntil.After(now)
}

// submit calls the rail for a payout claimed by its request and records the answer. It returns
// the payout as recorded when the answer left it pending with its postings as they were (a
// receipt, or a rail to try again), else nil; an error leaves it to the worker.
func (s *Service) submit(ctx context.Context, t *TransferRecord, method *PayoutMethodRecord) *TransferRecord {
	c := &railCall{t: t, method: method}
	if err := s.callAndRecord(ctx, c); err != nil {
		s.log.Warn("submitting a new payout failed; the worker will", "transfer", t.ID, "err", err)
		return nil
	}
	return c.recorded
}

// railMethodsOrFail returns the method each of ts is paid to, the users' methods read in one
// query per app, or fails the payout (in status from) whose method was removed and gives it none.
// An error of the store is no removal: it is returned, and fails no payout.
func (s *Service) railMethodsOrFail(ctx context.Context, q *Tx, ts []*TransferRecord, from payouts.TransferStatus) ([]*PayoutMethodRecord, error) {
	methods, err := usersMethods(ctx, q, ts)
	if err != nil {
		return nil, err
	}
	out := make([]*PayoutMethodRecord, len(ts))
	for i, t := range ts {
		switch out[i], err = s.methodOf(ctx, q, t, methods); {
		case err == nil:
			continue
		case payouts.ErrorCode(err) == payouts.EInternal:
			return nil, err
		}
		// Each payout failed is a plan of its own: the one failed before it is applied first.
		if err := q.apply(ctx); err != nil {
			return nil, err
		}
		b, err := s.planBook(ctx, q, t.AppID)
		if err != nil {
			return nil, err
		}
		if err := s.failPayout(ctx, q, b, t, from, "the payout method was removed"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// callRail asks the payout's rail, with no transaction open.
func (s *Service) callRail(ctx context.Context, c *railCall) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RailLease/2)
	defer cancel()
	rail := s.cfg.Rails[c.method.Platform]
	p := s.railPayout(c.t, c.method)
	if c.t.RailState == RailSubmitting {
		if p.AccountNumber, c.err = s.accountNumber(c.method); c.err != nil {
			return
		}
		if p.Memo, p.AppName, c.err = s.payeeNote(ctx, c.t); c.err != nil {
			return
		}
		c.receipt, c.err = rail.Submit(ctx, c.t.ID, p)
		return
	}
	c.outcome, c.err = rail.Outcome(ctx, p, c.t.ExternalData.ExternalID)
}

// record books the rail's answer, unless the claim was lost meanwhile. An answer that moves no
// money (a receipt, or a rail to ask again later) is one guarded update; a rejection or an
// outcome reads the payout first, to fail or settle it with its postings.
func (s *Service) record(ctx context.Context, q *Tx, c *railCall) error {
	c.recorded = nil // the transaction may run more than once
	var rejection *RailRejection
	rejected := c.t.RailState == RailSubmitting && errors.As(c.err, &rejection)
	if !rejected {
		if t := s.stillPending(c); t != nil {
			return s.recordPending(ctx, q, c, t)
		}
	}
	t, err := q.GetTransfer(ctx, c.t.AppID, c.t.ID)
	if err != nil {
		return err
	}
	if t.Status != payouts.TransferPending || t.RailState != c.t.RailState || t.Attempts != c.t.Attempts {
		s.leaseLost(t.ID)
		return nil
	}
	b, err := s.planBook(ctx, q, t.AppID)
	if err != nil {
		return err
	}
	t.LeaseUntil = time.Time{}
	if rejected {
		return s.failPayout(ctx, q, b, t, payouts.TransferPending, rejection.Reason)
	}
	return s.settle(ctx, q, b, t, c.outcome)
}

// recordPending writes t, the payout as the rail's answer left it still pending, if it is still
// c's claim.
func (s *Service) recordPending(ctx context.Context, q *Tx, c *railCall, t *TransferRecord) error {
	switch err := q.UpdateClaimedPayout(ctx, t, c.t.RailState); {
	case errors.Is(err, ErrNoRecord):
		s.leaseLost(t.ID)
		return nil
	case err != nil:
		return err
	}
	q.transferUpdated(t, t.Status) // no event, but any event of it renders this record
	c.recorded = t
	return nil
}

// stillPending is the claimed payout as an answer other than a rejection leaves it when it moves
// no money: a receipt, or a rail to ask again later. It is nil for an outcome, which settles the
// payout.
func (s *Service) stillPending(c *railCall) *TransferRecord {
	t := *c.t
	var unresolved *RailUnresolved
	switch {
	case errors.As(c.err, &unresolved):
		s.log.Error("rail outcome unresolved: the payout waits for an operator", "transfer", t.ID, "platform", c.method.Platform,
			"state", t.RailState, "reason", unresolved.Reason)
		t.RailState, t.FailureReason, t.SettleAt = RailNeedsOperator, unresolved.Reason, time.Time{}
	case c.err != nil:
		s.log.Warn("rail unavailable; will retry", "transfer", t.ID, "platform", c.method.Platform, "state", t.RailState, "err", c.err)
		t.SettleAt = s.now().Add(submitRetry)
	case t.RailState == RailSubmitting:
		t.RailState, t.ExternalData.ExternalID, t.SettleAt = RailSubmitted, c.receipt.ExternalID, c.receipt.SettleAt
	default:
		return nil
	}
	t.LeaseUntil, t.Updated = time.Time{}, s.now()
	return &t
}

// leaseLost drops a rail's answer whose claim ran out: another worker took the payout over, and
// its call carried the same idempotency key, so what it records stands for both.
func (s *Service) leaseLost(id string) {
	s.log.Warn("rail answer dropped: the payout's lease was lost", "transfer", id)
}

// accountNumber opens the account number of a bank method, sealed for its user or, for an app's
// own account, for the app (payout_method.go, app_details.go); other methods have none.
func (s *Service) accountNumber(m *PayoutMethodRecord) (string, error) {
	if m.SealedAccount == nil {
		return "", nil
	}
	aad := aadOf(SealedAccount, m.UserID)
	if m.UserID == "" {
		aad = aadOf(SealedAppBank, m.AppID)
	}
	plain, err := s.open(m.SealedAccount, aad)
	if err != nil {
		return "", fmt.Errorf("open the account number of method %s: %w", m.ID, err)
	}
	return string(plain), nil
}

// payeeNote is what the payee is told of a payout: its payout link's memo, if it was claimed
// from a link that had one, and the name of the app paying.
func (s *Service) payeeNote(ctx context.Context, t *TransferRecord) (memo, appName string, err error) {
	app, err := s.store.GetApp(ctx, t.AppID)
	if err != nil {
		return "", "", err
	}
	if t.PayoutLinkID != nil {
		link, err := s.store.GetPayoutLink(ctx, t.AppID, *t.PayoutLinkID)
		if err != nil {
			return "", "", err
		}
		memo = link.Memo
	}
	return memo, app.Name, nil
}

func (s *Service) railPayout(t *TransferRecord, method *PayoutMethodRecord) RailPayout {
	p := RailPayout{TransferID: t.ID, AppID: t.AppID, Amount: t.Amount, Method: *method, Created: t.Created.Time}
	if t.UserID != nil { // an app's withdrawal has none
		p.UserID = *t.UserID
	}
	return p
}
