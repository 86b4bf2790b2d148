package service

import (
	"context"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"
)

// CreatePayout pays a user out on a rail: their money (or, with fund, the app's money moved to
// them first) is reserved while the rail settles, then posted, or released if the rail fails.
func (s *Service) CreatePayout(ctx context.Context, appID string, req payouts.CreatePayoutRequest) (*payouts.Transfer, error) {
	if req.Platform == payouts.PlatformBankTransfer {
		req.Platform = payouts.PlatformACH
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	id, replayed, err := s.idempotent(ctx, appID, "payout", req.IdempotencyKey, req, false, func(q Queries) (string, error) {
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
	if !replayed { // a replay's payout is its first request's, or the worker's
		s.submitClaimed(ctx, appID, id)
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

// payout writes a payout transfer and its reservations, due for submission to its rail and claimed
// by the request unless it is held for review. The caller runs submitClaimed once its
// transaction has committed.
func (s *Service) payout(ctx context.Context, q Queries, o payoutOrder) (*TransferRecord, error) {
	user := o.user
	if needsW9(user) {
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
	app, wallet, err := b.appAndUser(ctx, &user.User)
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
	t.Status, t.RailState, t.SettleAt = payouts.TransferPending, RailSubmitting, s.now()
	if user.Compliance.Flagged || s.cfg.Screener.HoldForReview(s.railPayout(t, method)) {
		t.Status, t.RailState, t.SettleAt = payouts.TransferFlagged, "", time.Time{}
	}
	s.claimForRequest(t)
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

// needsW9 reports whether the user was paid past the 1099 threshold without a tax form on file:
// such a user is paid out only after giving one.
func needsW9(user *UserRecord) bool {
	c := user.Compliance
	return c.MustCollect1099 && !c.Collected1099 && !c.W8BENCollected
}

// SendPayout pays a known user with a default payout method at once, the app funding the payout;
// anyone else gets a payout link. The answer says which happened.
func (s *Service) SendPayout(ctx context.Context, appID string, req payouts.SendPayoutRequest) (*payouts.SentPayoutResult, error) {
	link, extra, err := s.validatePayoutLink(&req)
	if err != nil {
		return nil, err
	}
	var kind string
	id, replayed, err := s.idempotent(ctx, appID, "send-payout", req.IdempotencyKey, req, false, func(q Queries) (string, error) {
		var id string
		kind, id, err = s.sendPayout(ctx, q, appID, req, link, extra)
		return kind + ":" + id, err
	})
	if err != nil {
		return nil, err
	}
	kind, id, _ = strings.Cut(id, ":") // a replay learns what the first request did
	if kind == payouts.SentPayout && !replayed {
		s.submitClaimed(ctx, appID, id)
	}
	return s.sentPayout(ctx, appID, kind, id)
}

// sendPayout pays or links inside q and returns what it did (payouts.SentPayout or
// payouts.SentPayoutLink) and the id of the transfer or link.
func (s *Service) sendPayout(ctx context.Context, q Queries, appID string, req payouts.SendPayoutRequest,
	link *PayoutLinkRecord, extra linkExtras) (kind, id string, err error) {
	if req.UserID != "" && !req.ForceCollectComplianceInfo && len(req.AdditionalSteps) == 0 {
		user, err := s.getUser(ctx, q, appID, req.UserID)
		if err != nil {
			return "", "", err
		}
		if _, err := s.payoutMethod(ctx, q, user, payouts.PlatformDefault, ""); err == nil && !needsW9(user) {
			t, err := s.payout(ctx, q, payoutOrder{user: user, amount: link.Amount, platform: payouts.PlatformDefault,
				fund: true, feeParty: req.PayoutFeeParty, taxExempt: req.TaxExempt, metadata: link.Metadata,
				idempotencyKey: req.IdempotencyKey})
			if err != nil {
				return "", "", err
			}
			return payouts.SentPayout, t.ID, nil
		}
	}
	id, err = s.issuePayoutLink(ctx, q, appID, req.UserID, link, extra)
	return payouts.SentPayoutLink, id, err
}

func (s *Service) sentPayout(ctx context.Context, appID, kind, id string) (*payouts.SentPayoutResult, error) {
	out := &payouts.SentPayoutResult{Type: kind}
	var err error
	if kind == payouts.SentPayout {
		out.Transfer, err = s.GetTransfer(ctx, appID, id)
	} else {
		out.PayoutLink, err = s.GetPayoutLink(ctx, appID, id)
	}
	return out, err
}
