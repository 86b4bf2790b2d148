package service

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/disburse/disburse/payouts"
)

// refusal is a rule a request breaks: the error the real request answers, and the stable code a
// preflight names it by (two rules may answer the same error code, user-info-missing say).
type refusal struct {
	code string
	err  *payouts.Error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// PreflightPayout answers what POST /v2/payouts would make of req, writing nothing: every rule
// it would refuse the request by, and whether it would hold the payout for review.
func (s *Service) PreflightPayout(ctx context.Context, appID string, req payouts.CreatePayoutRequest) (*payouts.Preflight, error) {
	out, err := s.PreflightBatch(ctx, appID, payouts.PreflightBatchRequest{Items: []payouts.PreflightItem{{Payout: &req}}})
	if err != nil {
		return nil, err
	}
	return &out.Items[0], nil
}

// PreflightBatch runs the preflight of each item in order, on one dry book: each item is checked
// as if the items before it that pass had been made. It reads each user, account and yearly
// total once, so its work is bounded by the batch's size (payouts.MaxPreflightItems).
func (s *Service) PreflightBatch(ctx context.Context, appID string, req payouts.PreflightBatchRequest) (*payouts.PreflightBatch, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	b, err := s.bookOn(ctx, s.store, newDryLedger(s.store), appID)
	if err != nil {
		return nil, err
	}
	out := &payouts.PreflightBatch{OK: true, Items: make([]payouts.Preflight, len(req.Items))}
	for i, it := range req.Items {
		var refusals []refusal
		var held bool
		switch {
		case it.Payout != nil:
			refusals, held, err = s.preflightPayout(ctx, b, *it.Payout)
		case it.Transfer != nil:
			refusals, err = s.preflightTransfer(ctx, b, *it.Transfer)
		case it.PayoutLink != nil:
			refusals, held, err = s.preflightLink(ctx, b, *it.PayoutLink)
		default:
			refusals, held, err = s.preflightApproval(ctx, b, it.PayoutRequest)
		}
		if err != nil {
			return nil, err
		}
		pf := payouts.Preflight{OK: len(refusals) == 0, Problems: []payouts.Problem{}, Notices: []payouts.Problem{}}
		for _, r := range refusals {
			pf.Problems = append(pf.Problems, problemsOf(r)...)
		}
		if held && pf.OK {
			pf.Notices = append(pf.Notices, payouts.Problem{Code: payouts.NHeldForReview,
				Message: "The payout will be held for review until someone releases it."})
		}
		out.Items[i] = pf
		out.OK = out.OK && pf.OK
	}
	return out, nil
}

// preflightPayout runs CreatePayout's rules on req through the dry book b: its checks of the
// request, then planPayout and bookPayout, which the real request runs too. An error is a failure
// to read.
func (s *Service) preflightPayout(ctx context.Context, b *book, req payouts.CreatePayoutRequest) (refusals []refusal, held bool, err error) {
	if r := requestRefusal(preparePayout(&req), checkIdempotencyKey(req.IdempotencyKey)); r != nil {
		return []refusal{*r}, false, nil
	}
	user, r, err := s.preflightUser(ctx, b, req.UserID)
	if r != nil || err != nil {
		return refusalsOf(r), false, err
	}
	return s.preflightOrder(ctx, b, payoutOrderOf("", user, req))
}

// preflightOrder runs a payout's rules, planPayout and bookPayout, which the real payout runs
// too, on o through the dry book b.
func (s *Service) preflightOrder(ctx context.Context, b *book, o payoutOrder) (refusals []refusal, held bool, err error) {
	p, refusals, err := s.planPayout(ctx, b.reads, b, o)
	if len(refusals) > 0 || err != nil {
		return refusals, false, err
	}
	_, err = s.bookPayout(ctx, b, p, o)
	if r := bookRefusal(err); r != nil {
		return []refusal{*r}, false, nil
	}
	return nil, p.t.Status == payouts.TransferFlagged, err
}

// preflightLink runs CreatePayoutLink's rules on req through the dry book b (preflightIssue).
func (s *Service) preflightLink(ctx context.Context, b *book, req payouts.CreatePayoutLinkRequest) ([]refusal, bool, error) {
	link, user, refusals, err := s.preflightLinkRequest(ctx, b, &req)
	if len(refusals) > 0 || err != nil {
		return refusals, false, err
	}
	return s.preflightIssue(ctx, b, link, user)
}

// preflightApproval runs what approving the payout request id would send (ReviewPayoutRequest,
// then SendPayout) through the dry book b: a payout at once, funded by the app, to a user
// SendPayout pays at once, else a payout link.
func (s *Service) preflightApproval(ctx context.Context, b *book, id string) ([]refusal, bool, error) {
	var r *PayoutRequestRecord
	var err error
	if payouts.ValidID(id) {
		r, err = b.reads.GetPayoutRequest(ctx, b.appID, id)
	}
	switch {
	case r == nil && (err == nil || errors.Is(err, ErrNoRecord)):
		return []refusal{{payouts.PInvalidInput, payouts.FieldError("payout_request", "is not a payout request of this app")}}, false, nil
	case err != nil:
		return nil, false, err
	case r.Status != payouts.RequestCreated:
		return []refusal{{payouts.PInvalidInput, payouts.Errorf(payouts.EInvalidTransaction, "The payout request was already %s.", r.Status)}}, false, nil
	}
	req := approvalOf(r)
	link, user, refusals, err := s.preflightLinkRequest(ctx, b, req)
	if len(refusals) > 0 || err != nil {
		return refusals, false, err
	}
	if user != nil && s.paysAtOnce(ctx, b.reads, user, *req) {
		return s.preflightOrder(ctx, b, atOnceOrder(user, link, *req))
	}
	return s.preflightIssue(ctx, b, link, user)
}

// preflightLinkRequest checks a payout link's request on its own, as validatePayoutLink does,
// and reads the user it is to, if any, through the dry book.
func (s *Service) preflightLinkRequest(ctx context.Context, b *book, req *payouts.CreatePayoutLinkRequest) (*PayoutLinkRecord, *UserRecord, []refusal, error) {
	link, _, err := s.validatePayoutLink(req)
	if r := requestRefusal(err, checkIdempotencyKey(req.IdempotencyKey)); r != nil {
		return nil, nil, []refusal{*r}, nil
	}
	if err != nil || req.UserID == "" {
		return link, nil, nil, err
	}
	user, r, err := s.preflightUser(ctx, b, req.UserID)
	return link, user, refusalsOf(r), err
}

// preflightIssue runs issuePayoutLink's rules on link (to user, when it is to one) through the
// dry book b: its payee's contact and the reservation of its amount from the app's wallet. For
// a link to a user it then runs what their claim would meet: the amount counted towards their
// 1099 threshold (unless the link is tax exempt), and the payout of it to their default method,
// as the flow's payout step makes it. The flow asks the payee for a payout method, and for the
// tax form when the link collects compliance information: those are not the claim's problems.
func (s *Service) preflightIssue(ctx context.Context, b *book, link *PayoutLinkRecord, user *UserRecord) ([]refusal, bool, error) {
	if r := requestRefusal(addressLink(link, user)); r != nil {
		return []refusal{*r}, false, nil
	}
	_, err := b.reserveLink(ctx, "", link.Amount)
	if r := bookRefusal(err); r != nil {
		return []refusal{*r}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if user == nil {
		return nil, false, nil
	}
	if !link.TaxExempt {
		if err := s.countPayment(ctx, b.led, user, link.Amount); err != nil {
			return nil, false, err
		}
	}
	p, refusals, err := s.planPayout(ctx, b.reads, b, payoutOrder{user: user, amount: link.Amount,
		platform: payouts.PlatformDefault, feeParty: link.PayoutFeeParty, taxExempt: link.TaxExempt})
	refusals = slices.DeleteFunc(refusals, func(r refusal) bool {
		return r.code == payouts.PPayoutMethodMissing || r.code == payouts.PTaxFormMissing && link.ForceCompliance
	})
	return refusals, len(refusals) == 0 && p != nil && p.t.Status == payouts.TransferFlagged, err
}

// preflightTransfer runs CreateTransfer's rules on req through the dry book b.
func (s *Service) preflightTransfer(ctx context.Context, b *book, req payouts.CreateTransferRequest) ([]refusal, error) {
	if r := requestRefusal(req.Validate(), checkIdempotencyKey(req.IdempotencyKey)); r != nil {
		return []refusal{*r}, nil
	}
	user, r, err := s.preflightUser(ctx, b, req.UserID)
	if r != nil || err != nil {
		return refusalsOf(r), err
	}
	_, err = s.bookBalanceTransfer(ctx, b, "", user, req)
	if r := bookRefusal(err); r != nil {
		return []refusal{*r}, nil
	}
	return nil, err
}

// preflightUser reads the user a request names through the dry book, once per run; no such user
// in the app is the request's refusal, as the real request answers 404.
func (s *Service) preflightUser(ctx context.Context, b *book, id string) (*UserRecord, *refusal, error) {
	user, err := s.bookUser(ctx, b.reads, b, id)
	var e *payouts.Error
	if errors.As(err, &e) && e.Code == payouts.ENotFound {
		return nil, &refusal{payouts.PUserNotFound, e}, nil
	}
	return user, nil, err
}

// requestRefusal is the first of a request's own problems (its fields, its idempotency key), as
// the real request answers them before it reads anything.
func requestRefusal(errs ...error) *refusal {
	for _, err := range errs {
		var e *payouts.Error
		if errors.As(err, &e) {
			return &refusal{payouts.PInvalidInput, e}
		}
	}
	return nil
}

// bookRefusal is the refusal of the ledger's guard when booking overdrew a wallet, else nil.
func bookRefusal(err error) *refusal {
	var e *payouts.Error
	if errors.As(err, &e) && e.Code == payouts.EInsufficientFunds {
		return &refusal{payouts.PInsufficientFunds, e}
	}
	return nil
}

func refusalsOf(r *refusal) []refusal {
	if r == nil {
		return nil
	}
	return []refusal{*r}
}

// problemsOf names a refusal as problems: one per field it names (sorted), else one.
func problemsOf(r refusal) []payouts.Problem {
	if len(r.err.Fields) == 0 {
		field := ""
		if r.code == payouts.PUserNotFound {
			field = "user_id"
		}
		return []payouts.Problem{{Code: r.code, Message: r.err.Message, Field: field}}
	}
	fields := make([]string, 0, len(r.err.Fields))
	for f := range r.err.Fields {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	out := make([]payouts.Problem, len(fields))
	for i, f := range fields {
		out[i] = payouts.Problem{Code: r.code, Message: f + ": " + r.err.Fields[f], Field: f}
	}
	return out
}
