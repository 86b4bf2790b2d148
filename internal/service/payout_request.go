package service

import (
	"context"
	"errors"
	"strings"

	"github.com/disburse/disburse/payouts"
)

// CreatePayoutRequest records a payout someone asked for, for a user of the app or a payee, to
// wait for an operator's review.
func (s *Service) CreatePayoutRequest(ctx context.Context, appID string, req payouts.CreatePayoutRequestRequest) (*payouts.PayoutRequest, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	// The payee is checked and tidied as a payout link's, since approval may send one.
	link, _, err := s.validatePayoutLink(linkRequestOf(req))
	if err != nil {
		return nil, err
	}
	now := s.now()
	r := &PayoutRequestRecord{AppID: appID, Updated: now, PayoutRequest: payouts.PayoutRequest{
		ID: newID(), Created: payouts.NewTime(now), Amount: payouts.Money(req.Amount),
		Status: payouts.RequestCreated, Payee: link.Payee, Metadata: link.Metadata, Memo: link.Memo}}
	err = s.inTx(ctx, func(q *Tx) error {
		if req.UserID != "" {
			user, err := s.getUser(ctx, q, appID, req.UserID)
			if err != nil {
				return err
			}
			r.UserID = &user.ID
		}
		if err := q.CreatePayoutRequest(ctx, r); err != nil {
			return err
		}
		q.payoutRequestChanged(r, "")
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutRequest(ctx, appID, r.ID)
}

// linkRequestOf is the payout link (or send-payout) request that approving r makes.
func linkRequestOf(r payouts.CreatePayoutRequestRequest) *payouts.CreatePayoutLinkRequest {
	return &payouts.CreatePayoutLinkRequest{Amount: r.Amount, UserID: r.UserID, Payee: r.Payee,
		Metadata: r.Metadata, Memo: r.Memo}
}

// approvalOf is what approving r sends: SendPayout's request, to its user or its payee.
func approvalOf(r *PayoutRequestRecord) *payouts.SendPayoutRequest {
	lr := linkRequestOf(payouts.CreatePayoutRequestRequest{Amount: int64(r.Amount), Payee: &r.Payee,
		Metadata: r.Metadata, Memo: r.Memo})
	if r.UserID != nil {
		lr.UserID, lr.Payee = *r.UserID, nil
	}
	return lr
}

// GetPayoutRequest returns a payout request with its user and payout link, when it has them.
func (s *Service) GetPayoutRequest(ctx context.Context, appID, id string) (*payouts.PayoutRequest, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout request")
	}
	r, err := s.store.GetPayoutRequest(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "payout request")
	}
	return s.payoutRequestOf(ctx, s.store, r)
}

func (s *Service) payoutRequestOf(ctx context.Context, q Reads, r *PayoutRequestRecord) (*payouts.PayoutRequest, error) {
	out := r.PayoutRequest
	if r.UserID != nil {
		u, err := q.GetUser(ctx, r.AppID, *r.UserID)
		switch {
		case err == nil:
			out.User = &u.User
		case !errors.Is(err, ErrNoRecord):
			return nil, err
		}
	}
	if r.PayoutLinkID != nil {
		l, err := q.GetPayoutLink(ctx, r.AppID, *r.PayoutLinkID)
		if err != nil {
			return nil, err
		}
		out.PayoutLink = s.linkOut(l)
	}
	return &out, nil
}

// ListPayoutRequests returns a page of the app's payout requests, newest first unless the filter
// asks for the oldest.
func (s *Service) ListPayoutRequests(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutRequestFilter) (*payouts.List[payouts.PayoutRequest], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListPayoutRequests(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.PayoutRequest]{HasMore: more, Data: make([]payouts.PayoutRequest, len(recs))}
	for i := range recs {
		r, err := s.payoutRequestOf(ctx, s.store, &recs[i])
		if err != nil {
			return nil, err
		}
		out.Data[i] = *r
	}
	return out, nil
}

// CountPayoutRequests counts the app's payout requests the filter matches.
func (s *Service) CountPayoutRequests(ctx context.Context, appID string, f payouts.PayoutRequestFilter) (*payouts.PayoutRequestCount, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	n, err := s.store.CountPayoutRequests(ctx, appID, f)
	if err != nil {
		return nil, err
	}
	return &payouts.PayoutRequestCount{Count: n}, nil
}

// ReviewPayoutRequest approves a created request, which pays its user at once when they have a
// default payout method and otherwise sends a payout link, or rejects it. A request is reviewed
// once; the money moves in the same transaction as the approval.
func (s *Service) ReviewPayoutRequest(ctx context.Context, appID, id string, req payouts.ReviewPayoutRequestRequest) (*payouts.PayoutRequest, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if !payouts.ValidID(id) {
		return nil, notFound("payout request")
	}
	var made *madePayout // the payout an approval made, to submit once committed
	err := s.inTx(ctx, func(q *Tx) error {
		made = nil // the transaction may run more than once
		r, err := q.GetPayoutRequest(ctx, appID, id)
		if err != nil {
			return orNotFound(err, "payout request")
		}
		if r.Status != payouts.RequestCreated {
			return payouts.Errorf(payouts.EInvalidTransaction, "The payout request was already %s.", r.Status)
		}
		r.Status, r.Updated = payouts.RequestRejected, s.now()
		if req.Action == payouts.ReviewReject {
			r.RejectReason = strings.TrimSpace(req.Reason)
			return q.decidePayoutRequest(ctx, r)
		}
		lr := approvalOf(r)
		link, extra, err := s.validatePayoutLink(lr)
		if err != nil {
			return err
		}
		linkID, sent, err := s.sendPayout(ctx, q, appID, *lr, link, extra)
		if err != nil {
			return err
		}
		r.PayoutLinkID = &linkID
		if sent != nil {
			r.TransferID, made = &sent.t.ID, sent
		}
		r.Status = payouts.RequestApproved
		return q.decidePayoutRequest(ctx, r)
	})
	if err != nil {
		return nil, err
	}
	if made != nil {
		s.submitMade(ctx, made)
	}
	return s.GetPayoutRequest(ctx, appID, id)
}
