package service

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// submitRetry is how long a payout waits before its submission to a rail is tried again after
// the rail could not be reached.
const submitRetry = 30 * time.Second

// CreatePayout pays a user out on a rail: their money (or, with fund, the app's money moved to
// them first) is reserved while the rail settles, then posted, or released if the rail fails.
func (s *Service) CreatePayout(ctx context.Context, appID string, req payouts.CreatePayoutRequest) (*payouts.Transfer, error) {
	if req.Platform == payouts.PlatformBankTransfer {
		req.Platform = payouts.PlatformACH
	}
	p := payouts.Problems{}
	switch {
	case req.UserID == "":
		p.Add("user_id", "is required")
	case !payouts.ValidID(req.UserID):
		p.Add("user_id", "is not a valid id")
	}
	checkAmount(p, req.Amount, false)
	switch {
	case req.Platform == "":
		p.Add("platform", "is required")
	case !req.Platform.Valid() && req.Platform != payouts.PlatformDefault:
		p.Add("platform", "must be paypal, venmo, cash_app, ach or default")
	case req.Platform == payouts.PlatformACH && req.AccountID == "":
		p.Add("account_id", "is required for ach payouts")
	}
	if req.AccountID != "" && !payouts.ValidID(req.AccountID) {
		p.Add("account_id", "is not a valid id")
	}
	if !req.PayoutFeeParty.Valid() {
		p.Add("payout_fee_party", "must be user or platform")
	}
	if m := payouts.ValidateMetadata(req.Metadata); m != "" {
		p.Add("metadata", m)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	id, _, err := s.idempotent(ctx, appID, "payout", req.IdempotencyKey, req, false, func(q Queries) (string, error) {
		user, err := s.getUser(ctx, q, appID, req.UserID)
		if err != nil {
			return "", err
		}
		t, err := s.payout(ctx, q, payoutOrder{user: user, amount: payouts.Money(req.Amount), platform: req.Platform,
			accountID: req.AccountID, fund: req.Fund, feeParty: req.PayoutFeeParty, taxExempt: req.TaxExempt,
			metadata: req.Metadata, idempotencyKey: req.IdempotencyKey})
		if err != nil {
			return "", err
		}
		return t.ID, nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetTransfer(ctx, appID, id)
}

// payoutOrder is a payout to make, from the API or from a payout link's claim.
type payoutOrder struct {
	user           *UserRecord
	amount         payouts.Money
	platform       payouts.Platform
	accountID      string
	fund           bool
	feeParty       payouts.FeeParty
	taxExempt      bool
	metadata       payouts.Metadata
	idempotencyKey string
	payoutLinkID   string
}

// payout writes a payout transfer and its reservations, and submits it to the rail unless it is
// held for review.
func (s *Service) payout(ctx context.Context, q Queries, o payoutOrder) (*TransferRecord, error) {
	user := o.user
	if user.Compliance.MustCollect1099 && !user.Compliance.Collected1099 && !user.Compliance.W8BENCollected {
		return nil, payouts.Errorf(payouts.EUserInfoMissing,
			"The user has been paid past the 1099 threshold this year; collect their W-9 before paying out.")
	}
	method, err := s.payoutMethod(ctx, q, user, o.platform, o.accountID)
	if err != nil {
		return nil, err
	}
	party := o.feeParty
	if party == "" {
		party = s.cfg.DefaultFeeParty
	}
	fee := s.cfg.Fees[method.Platform]
	net := o.amount
	if party == payouts.FeePartyUser {
		net -= fee
		if net <= 0 {
			return nil, payouts.FieldError("amount", "must be more than the "+fee.String()+" fee the user pays")
		}
	}
	b, err := s.book(ctx, q, user.AppID)
	if err != nil {
		return nil, err
	}
	app, err := b.app(ctx)
	if err != nil {
		return nil, err
	}
	wallet, err := b.user(ctx, &user.User)
	if err != nil {
		return nil, err
	}
	clearing, err := b.clearing(ctx, method.Platform)
	if err != nil {
		return nil, err
	}
	t := s.newTransfer(user.AppID, payouts.TransferPayout, o.amount, o.metadata)
	t.UserID = &user.ID
	t.ExternalData = payouts.ExternalData{AccountID: method.ID, Platform: method.Platform}
	t.IdempotencyKey, t.FeeParty, t.Fund, t.TaxExempt = o.idempotencyKey, party, o.fund, o.taxExempt
	if o.payoutLinkID != "" {
		t.PayoutLinkID = &o.payoutLinkID
	}
	t.Status = payouts.TransferPending
	if user.Compliance.Flagged || o.amount == TriggerFlagAmount {
		t.Status = payouts.TransferFlagged
	}
	if err := q.CreateTransfer(ctx, t); err != nil {
		return nil, err
	}
	var lines []line
	if o.fund {
		lines = append(lines, line{from: app, to: wallet, amount: o.amount, typ: payouts.TransactionBalance})
	}
	lines = append(lines, line{from: wallet, to: clearing, amount: net, typ: payouts.TransactionPayout, pending: true})
	if fee > 0 {
		fees, err := b.fees(ctx)
		if err != nil {
			return nil, err
		}
		payer := app
		if party == payouts.FeePartyUser {
			payer = wallet
		}
		lines = append(lines, line{from: payer, to: fees, amount: fee, typ: payouts.TransactionFee, pending: true})
	}
	if _, err := b.move(ctx, t.ID, lines, nil); err != nil {
		return nil, err
	}
	if o.fund && !o.taxExempt {
		if err := s.recordPayment(ctx, q, user, o.amount); err != nil {
			return nil, err
		}
	}
	if t.Status == payouts.TransferPending {
		if err := s.submit(ctx, q, b, t, method); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// payoutMethod picks the saved method a payout goes to: the one named by accountID, the user's
// default for platform "default", or the newest of the platform.
func (s *Service) payoutMethod(ctx context.Context, q Queries, user *UserRecord, platform payouts.Platform, accountID string) (*PayoutMethodRecord, error) {
	methods, err := q.ListPayoutMethods(ctx, user.AppID, user.ID)
	if err != nil {
		return nil, err
	}
	for i := range methods {
		m := &methods[i]
		switch {
		case accountID != "":
			if m.ID == accountID {
				if platform != payouts.PlatformDefault && m.Platform != platform {
					return nil, payouts.FieldError("account_id", "is a "+string(m.Platform)+" method, not "+string(platform))
				}
				return m, nil
			}
		case platform == payouts.PlatformDefault:
			if m.Default {
				return m, nil
			}
		case m.Platform == platform:
			return m, nil
		}
	}
	switch {
	case accountID != "":
		return nil, payouts.FieldError("account_id", "is not a payout method of this user")
	case platform == payouts.PlatformDefault:
		return nil, payouts.Errorf(payouts.EUserInfoMissing, "The user has no default payout method.")
	}
	return nil, payouts.Errorf(payouts.EUserInfoMissing, "The user has no %s payout method saved.", platform)
}

// submit hands a pending payout to its rail. A rejection fails it at once; an unreachable rail
// is tried again later by the worker.
func (s *Service) submit(ctx context.Context, q Queries, b *book, t *TransferRecord, method *PayoutMethodRecord) error {
	rail := s.cfg.Rails[method.Platform]
	receipt, err := rail.Submit(ctx, s.railPayout(t, method))
	var rejection *RailRejection
	switch {
	case errors.As(err, &rejection):
		return s.failPayout(ctx, q, b, t, payouts.TransferPending, rejection.Reason)
	case err != nil:
		s.log.Warn("rail submission failed; will retry", "transfer", t.ID, "platform", method.Platform, "err", err)
		t.SettleAt = s.now().Add(submitRetry)
	default:
		t.ExternalData.ExternalID = receipt.ExternalID
		t.SettleAt = receipt.SettleAt
	}
	t.Updated = s.now()
	return q.UpdateTransfer(ctx, t, payouts.TransferPending)
}

func (s *Service) railPayout(t *TransferRecord, method *PayoutMethodRecord) RailPayout {
	return RailPayout{TransferID: t.ID, AppID: t.AppID, UserID: *t.UserID, Amount: t.Amount, Method: *method}
}

// settlePostings commits or voids the pending postings of a transfer, writing extra lines with
// them.
func (s *Service) settlePostings(ctx context.Context, q Queries, b *book, t *TransferRecord, op ledger.Op, extra []line) error {
	postings, err := q.PostingsOfTransfers(ctx, t.AppID, []string{t.ID})
	if err != nil {
		return err
	}
	var settle []ledger.Change
	for i := range postings {
		if postings[i].State == ledger.Pending {
			settle = append(settle, ledger.Change{Op: op, Posting: &postings[i]})
		}
	}
	_, err = b.move(ctx, t.ID, extra, settle)
	return err
}

// failPayout releases a payout's reservations and, for a funded payout, moves the funding back to
// the app.
func (s *Service) failPayout(ctx context.Context, q Queries, b *book, t *TransferRecord, from payouts.TransferStatus, reason string) error {
	var extra []line
	if t.Fund {
		user, err := q.GetUser(ctx, t.AppID, *t.UserID)
		if err != nil {
			return err
		}
		wallet, err := b.user(ctx, &user.User)
		if err != nil {
			return err
		}
		app, err := b.app(ctx)
		if err != nil {
			return err
		}
		extra = append(extra, line{from: wallet, to: app, amount: t.Amount, typ: payouts.TransactionBalance})
	}
	if err := s.settlePostings(ctx, q, b, t, ledger.OpVoid, extra); err != nil {
		return err
	}
	t.Status, t.FailureReason, t.Updated = payouts.TransferFailed, reason, s.now()
	return q.UpdateTransfer(ctx, t, from)
}

// settle asks the rail what became of a submitted payout and books the answer.
func (s *Service) settle(ctx context.Context, q Queries, t *TransferRecord) error {
	b, err := s.book(ctx, q, t.AppID)
	if err != nil {
		return err
	}
	method, err := s.payoutMethod(ctx, q, &UserRecord{AppID: t.AppID, User: payouts.User{ID: *t.UserID}},
		t.ExternalData.Platform, t.ExternalData.AccountID)
	if err != nil {
		return s.failPayout(ctx, q, b, t, payouts.TransferPending, "the payout method was removed")
	}
	if t.ExternalData.ExternalID == "" { // the rail was unreachable at submission
		return s.submit(ctx, q, b, t, method)
	}
	out, err := s.cfg.Rails[method.Platform].Outcome(ctx, s.railPayout(t, method), t.ExternalData.ExternalID)
	switch {
	case err != nil:
		s.log.Warn("rail outcome unavailable; will retry", "transfer", t.ID, "err", err)
		t.SettleAt = s.now().Add(submitRetry)
	case out.Failed:
		return s.failPayout(ctx, q, b, t, payouts.TransferPending, out.Reason)
	case out.Settled:
		if err := s.settlePostings(ctx, q, b, t, ledger.OpCommit, nil); err != nil {
			return err
		}
		t.Status = payouts.TransferCompleted
	default:
		t.SettleAt = out.RetryAt
	}
	t.Updated = s.now()
	return q.UpdateTransfer(ctx, t, payouts.TransferPending)
}

// ReviewTransfer releases a flagged transfer to its rail, or rejects it and releases its
// reservations.
func (s *Service) ReviewTransfer(ctx context.Context, appID, id string, req payouts.ReviewTransferRequest) (*payouts.Transfer, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("transfer")
	}
	reason := strings.TrimSpace(req.Reason)
	err := s.store.InTx(ctx, func(q Queries) error {
		t, err := q.GetTransfer(ctx, appID, id)
		if err != nil {
			return orNotFound(err, "transfer")
		}
		p := payouts.Problems{}
		if req.Action != payouts.ReviewRelease && req.Action != payouts.ReviewReject {
			p.Add("action", "must be release or reject")
		}
		if len(reason) > 500 {
			p.Add("reason", "must be at most 500 characters")
		}
		if err := p.Err(); err != nil {
			return err
		}
		if t.Status != payouts.TransferFlagged {
			return payouts.Errorf(payouts.EInvalidTransaction, "Only a flagged transfer can be reviewed; this one is %s.", t.Status)
		}
		b, err := s.book(ctx, q, appID)
		if err != nil {
			return err
		}
		if req.Action == payouts.ReviewReject {
			if reason == "" {
				reason = "rejected in review"
			}
			return s.failPayout(ctx, q, b, t, payouts.TransferFlagged, reason)
		}
		t.Status, t.Updated = payouts.TransferPending, s.now()
		if err := q.UpdateTransfer(ctx, t, payouts.TransferFlagged); err != nil {
			return err
		}
		method, err := s.payoutMethod(ctx, q, &UserRecord{AppID: appID, User: payouts.User{ID: *t.UserID}},
			t.ExternalData.Platform, t.ExternalData.AccountID)
		if err != nil {
			return s.failPayout(ctx, q, b, t, payouts.TransferPending, "the payout method was removed")
		}
		return s.submit(ctx, q, b, t, method)
	})
	if err != nil {
		return nil, err
	}
	return s.GetTransfer(ctx, appID, id)
}

// SettleDue settles the payouts whose time has come, each in its own transaction, and returns
// how many it moved on. A payout is claimed through the database (its status moves once), so
// several workers, in one process or many, never settle the same payout twice.
func (s *Service) SettleDue(ctx context.Context, max int) (int, error) {
	n := 0
	for n < max {
		found := false
		err := s.store.InTx(ctx, func(q Queries) error {
			t, err := q.ClaimDuePayout(ctx, s.now())
			if errors.Is(err, ErrNoRecord) {
				return nil
			}
			if err != nil {
				return err
			}
			found = true
			return s.settle(ctx, q, t)
		})
		if err != nil {
			return n, err
		}
		if !found {
			return n, nil
		}
		n++
	}
	return n, nil
}

// RunWorker settles due payouts and delivers payout links every interval, and forgets expired
// idempotency keys every hour, until ctx ends.
func (s *Service) RunWorker(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var lastPurge time.Time
	for {
		if now := s.now(); now.Sub(lastPurge) >= time.Hour {
			if _, err := s.PurgeIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("purging idempotency keys", "err", err)
			}
			lastPurge = now
		}
		if _, err := s.SettleDue(ctx, 100); err != nil && ctx.Err() == nil {
			s.log.Error("settling payouts", "err", err)
		}
		if _, err := s.DeliverDue(ctx, 100); err != nil && ctx.Err() == nil {
			s.log.Error("delivering payout links", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
