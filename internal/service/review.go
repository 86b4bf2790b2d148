package service

import (
	"context"
	"strings"

	"github.com/disburse/disburse/payouts"
)

// ReviewTransfer releases a flagged transfer to its rail, or rejects it and releases its
// reservations.
func (s *Service) ReviewTransfer(ctx context.Context, appID, id string, req payouts.ReviewTransferRequest) (*payouts.Transfer, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("transfer")
	}
	reason := strings.TrimSpace(req.Reason)
	err := s.inTx(ctx, func(q *Tx) error {
		t, err := q.GetTransfer(ctx, appID, id)
		if err != nil {
			return orNotFound(err, "transfer")
		}
		if err := req.Validate(); err != nil {
			return err
		}
		if t.Status != payouts.TransferFlagged {
			return payouts.Errorf(payouts.EInvalidTransaction, "Only a flagged transfer can be reviewed; this one is %s.", t.Status)
		}
		if req.Action == payouts.ReviewReject {
			if reason == "" {
				reason = "rejected in review"
			}
			b, err := s.planBook(ctx, q, appID)
			if err != nil {
				return err
			}
			return s.failPayout(ctx, q, b, t, payouts.TransferFlagged, reason)
		}
		if err := s.releaseSanctionsHits(ctx, q, t, req); err != nil {
			return err
		}
		// Released, it takes the path of a new payout: due for submission and claimed by this
		// request, which submits it after this transaction; it fails here if its method was
		// removed meanwhile, as a worker's claim would fail it.
		if methods, err := s.railMethodsOrFail(ctx, q, []*TransferRecord{t}, payouts.TransferFlagged); err != nil || methods[0] == nil {
			return err
		}
		t.Status, t.RailState, t.SettleAt, t.Updated = payouts.TransferPending, RailSubmitting, s.now(), s.now()
		s.claimForRequest(t)
		q.planTransferUpdate(t, payouts.TransferFlagged)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if req.Action == payouts.ReviewRelease {
		s.submitClaimed(ctx, appID, id)
	}
	return s.GetTransfer(ctx, appID, id)
}
