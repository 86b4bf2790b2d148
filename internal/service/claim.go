package service

import (
	"context"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// OpenPayoutLink returns a payout link by id alone, with its app: the hosted claim page's entry
// point.
func (s *Service) OpenPayoutLink(ctx context.Context, id string) (*PayoutLinkRecord, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("payout link")
	}
	l, err := s.store.PayoutLinkByID(ctx, id)
	if err != nil {
		return nil, orNotFound(err, "payout link")
	}
	l.Link = s.PayoutLinkURL(l.ID)
	return l, nil
}

// ClaimPayoutLink moves a link's money into the wallet of the verified user claiming it.
func (s *Service) ClaimPayoutLink(ctx context.Context, linkID, userID string) (*payouts.PayoutLink, error) {
	var appID string
	err := s.store.InTx(ctx, func(q Queries) error {
		l, err := q.PayoutLinkByID(ctx, linkID)
		if err != nil {
			return orNotFound(err, "payout link")
		}
		appID = l.AppID
		if !l.Status.Open() {
			return payouts.Errorf(payouts.EInvalidTransaction, "This payout link is %s.", l.Status)
		}
		if l.UserID != nil && *l.UserID != userID {
			return payouts.Errorf(payouts.EUnauthorized, "This payout link was sent to someone else.")
		}
		user, err := s.getUser(ctx, q, l.AppID, userID)
		if err != nil {
			return err
		}
		if err := s.settleLink(ctx, q, l, ledger.OpCommit, user); err != nil {
			return err
		}
		if !l.TaxExempt {
			if err := s.recordPayment(ctx, q, user, l.Amount); err != nil {
				return err
			}
		}
		from := l.Status
		l.Status, l.ClaimedUserID, l.Updated = payouts.LinkClaimed, &user.ID, s.now()
		return q.UpdatePayoutLink(ctx, l, from)
	})
	if err != nil {
		return nil, err
	}
	return s.GetPayoutLink(ctx, appID, linkID)
}
