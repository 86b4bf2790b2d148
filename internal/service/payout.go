package service

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// CreatePayout pays a user out on a rail: their money (or, with fund, the app's money moved to
// them first) is reserved while the rail settles, then posted, or released if the rail fails.
func (s *Service) CreatePayout(ctx context.Context, appID string, req payouts.CreatePayoutRequest) (*payouts.Transfer, error) {
	if err := preparePayout(&req); err != nil {
		return nil, err
	}
	var made *madePayout
	payoutID := s.transferIDs.New(appID)
	id, replayed, err := s.idempotentAs(ctx, Intent{UsersToRead: []string{req.UserID}}, appID, "payout", req.IdempotencyKey, payoutID, req, false, func(q *Tx) (string, error) {
		user, err := s.getUser(ctx, q, appID, req.UserID)
		if err != nil {
			return "", err
		}
		made, err = s.payout(ctx, q, payoutOrderOf(payoutID, user, req))
		if err != nil {
			return "", err
		}
		return made.t.ID, nil
	})
	if err != nil {
		return nil, err
	}
	if replayed { // a replay's payout is its first request's, or the worker's
		return s.GetTransfer(ctx, appID, id)
	}
	return s.answerMade(ctx, made)
}

// preparePayout reads bank_transfer as ach and checks what the request says on its own.
func preparePayout(req *payouts.CreatePayoutRequest) error {
	if req.Platform == payouts.PlatformBankTransfer {
		req.Platform = payouts.PlatformACH
	}
	return req.Validate()
}

// payoutOrderOf is the payout a POST /v2/payouts request asks of user, with id (any when "").
func payoutOrderOf(id string, user *UserRecord, req payouts.CreatePayoutRequest) payoutOrder {
	return payoutOrder{id: id, user: user, amount: payouts.Money(req.Amount), platform: req.Platform,
		accountID: req.AccountID, fund: req.Fund, feeParty: req.PayoutFeeParty, taxExempt: req.TaxExempt,
		metadata: req.Metadata, idempotencyKey: req.IdempotencyKey}
}

// madePayout is a payout as the transaction that wrote it left it: what submitting it and
// answering its request need, without reading it back. A transaction may run more than once, so
// it is only the committed payout when the run that set it was the one that committed.
type madePayout struct {
	t        *TransferRecord
	method   *PayoutMethodRecord
	postings []ledger.Posting
}

// submitMade submits a payout its request has just committed, if it is still the request's, as
// submitClaimed does but without reading it back. It returns the payout as it now stands when
// that is known without a read (as written, when it was held for review; as recorded, when the
// rail's answer left it pending with its postings), else nil.
func (s *Service) submitMade(ctx context.Context, made *madePayout) *TransferRecord {
	switch t := made.t; {
	case t.Status == payouts.TransferFlagged:
		return t
	case !claimedByRequest(t, s.now()):
		return nil
	}
	if t := s.submit(ctx, made.t, made.method); t != nil && t.Status == payouts.TransferPending {
		return t
	}
	return nil
}

// answerMade submits a payout its request has just committed and answers the request, from
// what was written and recorded when it can.
func (s *Service) answerMade(ctx context.Context, made *madePayout) (*payouts.Transfer, error) {
	if t := s.submitMade(ctx, made); t != nil {
		return written(t, made.postings), nil
	}
	return s.GetTransfer(ctx, made.t.AppID, made.t.ID)
}

// payoutOrder is a payout to make, from the API or from a payout link's claim.
type payoutOrder struct {
	// id is the payout's, when chosen beforehand: its request's idempotency key is then claimed
	// finished with it (idempotentAs), a statement fewer than a claim and a finish.
	id             string
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

// payout decides a payout transfer and its reservations into q's plan, applied when the
// transaction ends, due for submission to its rail and claimed by the request unless it is held
// for review. The caller submits it (submitMade) once its
// transaction has committed. Its rules are planPayout's, which the preflight runs too.
func (s *Service) payout(ctx context.Context, q *Tx, o payoutOrder) (*madePayout, error) {
	b, err := s.planBook(ctx, q, o.user.AppID)
	if err != nil {
		return nil, err
	}
	p, refusals, err := s.planPayout(ctx, q, b, o)
	switch {
	case err != nil:
		return nil, err
	case len(refusals) > 0:
		return nil, refusals[0].err
	}
	s.claimForRequest(p.t)
	q.plan.Transfer = p.t
	q.transferCreated(p.t)
	if err := q.SaveSanctionsHits(ctx, p.hits); err != nil {
		return nil, err
	}
	postings, err := s.bookPayout(ctx, b, p, o)
	if err != nil {
		return nil, err
	}
	q.transferWritten(p.t, postings)
	return &madePayout{t: p.t, method: p.method, postings: postings}, nil
}

// plannedPayout is a payout its rules let through, not yet written: the transfer as it will be
// written and the ledger lines it books.
type plannedPayout struct {
	t      *TransferRecord
	method *PayoutMethodRecord
	lines  []line
	hits   []SanctionsHitRecord // the sanctions hits that hold it, stored with it
}

// planPayout applies the rules of a payout that reads decide (the tax form the 1099 threshold
// asks for, the payout method, the fee) and, when none refuses it, plans the transfer and its
// lines; the wallets' balances are the ledger's guard's to decide, when the lines are booked
// (bookPayout). refusals are every rule it breaks, in the order the real request meets them: it
// answers the first, a preflight names them all. err is a failure to read.
func (s *Service) planPayout(ctx context.Context, q Reads, b *book, o payoutOrder) (_ *plannedPayout, refusals []refusal, err error) {
	user := o.user
	if needsW9(user) {
		refusals = append(refusals, refusal{payouts.PTaxFormMissing, payouts.Errorf(payouts.EUserInfoMissing,
			"The user has been paid past the 1099 threshold this year; collect their W-9 before paying out.")})
	}
	method, err := s.payoutMethod(ctx, q, user, o.platform, o.accountID)
	var refused *refusal
	switch {
	case errors.As(err, &refused):
		return nil, append(refusals, *refused), nil
	case err != nil:
		return nil, nil, err
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
			refusals = append(refusals, refusal{payouts.PInvalidInput,
				payouts.FieldError("amount", "must be more than the "+fee.String()+" fee the user pays")})
		}
	}
	if len(refusals) > 0 {
		return nil, refusals, nil
	}
	app, wallet, err := b.appAndUser(ctx, &user.User)
	if err != nil {
		return nil, nil, err
	}
	clearing, err := b.clearing(ctx, method.Platform)
	if err != nil {
		return nil, nil, err
	}
	id := o.id
	if id == "" {
		id = s.transferIDs.New(user.AppID)
	}
	t := s.newTransfer(id, user.AppID, payouts.TransferPayout, o.amount, o.metadata)
	t.UserID = &user.ID
	t.ExternalData = payouts.ExternalData{AccountID: method.ID, Platform: method.Platform}
	t.IdempotencyKey, t.FeeParty, t.Fund, t.TaxExempt = o.idempotencyKey, party, o.fund, o.taxExempt
	if o.payoutLinkID != "" {
		t.PayoutLinkID = &o.payoutLinkID
	}
	t.Status, t.RailState, t.SettleAt = payouts.TransferPending, RailSubmitting, s.now()
	hits, err := s.screenPayee(ctx, q, user)
	if err != nil {
		return nil, nil, err
	}
	if user.Compliance.Flagged || len(hits) > 0 || s.cfg.Screener.HoldForReview(s.railPayout(t, method)) {
		t.Status, t.RailState, t.SettleAt = payouts.TransferFlagged, "", time.Time{}
	}
	var lines []line
	if o.fund {
		lines = append(lines, line{from: app, to: wallet, amount: o.amount, typ: payouts.TransactionBalance})
	}
	lines = append(lines, line{from: wallet, to: clearing, amount: net, typ: payouts.TransactionPayout, pending: true})
	if fee > 0 {
		fees, err := b.fees(ctx)
		if err != nil {
			return nil, nil, err
		}
		payer := app
		if party == payouts.FeePartyUser {
			payer = wallet
		}
		lines = append(lines, line{from: payer, to: fees, amount: fee, typ: payouts.TransactionFee, pending: true})
	}
	return &plannedPayout{t: t, method: method, lines: lines, hits: hits}, nil, nil
}

// bookPayout books a planned payout's lines, guarded against overdraft, and counts a funded
// payout towards the user's 1099 threshold; on a preflight's book, in its memory alone (dryLedger).
func (s *Service) bookPayout(ctx context.Context, b *book, p *plannedPayout, o payoutOrder) ([]ledger.Posting, error) {
	postings, err := b.move(ctx, p.t.ID, p.lines, nil)
	if err != nil {
		return nil, err
	}
	if o.fund && !o.taxExempt {
		if err := s.countPayment(ctx, b.led, o.user, o.amount); err != nil {
			return nil, err
		}
	}
	return postings, nil
}

// payoutMethod picks the saved method a payout goes to: the one named by accountID, the user's
// default for platform "default", or the newest of the platform.
func (s *Service) payoutMethod(ctx context.Context, q Reads, user *UserRecord, platform payouts.Platform, accountID string) (*PayoutMethodRecord, error) {
	methods, err := q.ListPayoutMethods(ctx, user.AppID, user.ID)
	if err != nil {
		return nil, err
	}
	return pickMethod(methods, user.ID, platform, accountID)
}

// pickMethod is the method of the user userID among methods (newest first, of any users) that a
// payout names, or the refusal saying it has none.
func pickMethod(methods []PayoutMethodRecord, userID string, platform payouts.Platform, accountID string) (*PayoutMethodRecord, error) {
	for i := range methods {
		m := &methods[i]
		switch {
		case m.UserID != userID:
		case accountID != "":
			if m.ID == accountID {
				if platform != payouts.PlatformDefault && m.Platform != platform {
					return nil, &refusal{payouts.PInvalidInput, payouts.FieldError("account_id", "is a "+string(m.Platform)+" method, not "+string(platform))}
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
		return nil, &refusal{payouts.PPayoutMethodMissing, payouts.FieldError("account_id", "is not a payout method of this user")}
	case platform == payouts.PlatformDefault:
		return nil, &refusal{payouts.PPayoutMethodMissing, payouts.Errorf(payouts.EUserInfoMissing, "The user has no default payout method.")}
	}
	return nil, &refusal{payouts.PPayoutMethodMissing, payouts.Errorf(payouts.EUserInfoMissing, "The user has no %s payout method saved.", platform)}
}

// needsW9 reports whether the user was paid past the 1099 threshold without a tax form on file:
// such a user is paid out only after giving one.
func needsW9(user *UserRecord) bool {
	return user.Compliance.OwesW9()
}

// SendPayout pays a known user with a default payout method at once, the app funding the payout;
// anyone else gets a payout link. Either way the answer is a payout link, as the public model
// declares: a payment made at once is a link its user claimed at once, whose transfer_id is the
// payout.
func (s *Service) SendPayout(ctx context.Context, appID string, req payouts.SendPayoutRequest) (*payouts.PayoutLink, error) {
	link, extra, err := s.validatePayoutLink(&req)
	if err != nil {
		return nil, err
	}
	var made *madePayout
	id, replayed, err := s.idempotent(ctx, appID, "send-payout", req.IdempotencyKey, req, false, func(q *Tx) (string, error) {
		var id string
		id, made, err = s.sendPayout(ctx, q, appID, req, link, extra)
		// The kind before the id is what the answer said before it was always a link.
		kind := "payout_link"
		if made != nil {
			kind = "payout"
		}
		return kind + ":" + id, err
	})
	if err != nil {
		return nil, err
	}
	if made != nil && !replayed {
		s.submitMade(ctx, made)
	}
	_, id, _ = strings.Cut(id, ":") // a replay reads back the link the first request made
	return s.GetPayoutLink(ctx, appID, id)
}

// sendPayout pays or links inside q and returns the id of the link and the payout it made, if
// it paid at once.
func (s *Service) sendPayout(ctx context.Context, q *Tx, appID string, req payouts.SendPayoutRequest,
	link *PayoutLinkRecord, extra linkExtras) (id string, made *madePayout, err error) {
	if req.UserID != "" {
		user, err := s.getUser(ctx, q, appID, req.UserID)
		if err != nil {
			return "", nil, err
		}
		if s.paysAtOnce(ctx, q, user, req) {
			made, err := s.payout(ctx, q, atOnceOrder(user, link, req))
			if err != nil {
				return "", nil, err
			}
			if err := s.recordPaidLink(ctx, q, appID, user, link, made.t); err != nil {
				return "", nil, err
			}
			return link.ID, made, nil
		}
	}
	id, err = s.issuePayoutLink(ctx, q, appID, req.UserID, link, extra)
	return id, nil, err
}

// paysAtOnce reports whether SendPayout pays user at once rather than sending a payout link: the
// request asks nothing more of them (no compliance information, no extra steps), they have a
// default payout method, and they owe no W-9.
func (s *Service) paysAtOnce(ctx context.Context, q Reads, user *UserRecord, req payouts.SendPayoutRequest) bool {
	if req.ForceCollectComplianceInfo || len(req.AdditionalSteps) > 0 || needsW9(user) {
		return false
	}
	_, err := s.payoutMethod(ctx, q, user, payouts.PlatformDefault, "")
	return err == nil
}

// atOnceOrder is the payout SendPayout makes of req when it pays user at once: to their default
// method, funded by the app.
func atOnceOrder(user *UserRecord, link *PayoutLinkRecord, req payouts.SendPayoutRequest) payoutOrder {
	return payoutOrder{user: user, amount: link.Amount, platform: payouts.PlatformDefault, fund: true,
		feeParty: req.PayoutFeeParty, taxExempt: req.TaxExempt, metadata: link.Metadata,
		idempotencyKey: req.IdempotencyKey, payoutLinkID: link.ID}
}

// recordPaidLink writes the payout link of a payment made at once: issued to the user and
// claimed by them as it is made, with nothing reserved and no flow (the payout moved the money),
// and nothing to deliver.
func (s *Service) recordPaidLink(ctx context.Context, q *Tx, appID string, user *UserRecord, link *PayoutLinkRecord, payout *TransferRecord) error {
	link.AppID = appID
	if link.Payee == (payouts.Payee{}) {
		link.Payee = payeeOf(&user.User)
	}
	claimed := payouts.NewTime(s.now())
	link.Status, link.Delivery = payouts.LinkClaimed, payouts.Delivery{Method: payouts.DeliveryLink}
	link.UserID, link.ClaimedUserID, link.ClaimedAt, link.TransferID = &user.ID, &user.ID, &claimed, &payout.ID
	if err := q.CreatePayoutLink(ctx, link); err != nil {
		return err
	}
	q.linkCreated(link)
	return nil
}
