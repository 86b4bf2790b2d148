package service

import (
	"context"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

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
		app, wallet, err := b.appAndUser(ctx, &user.User)
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

// settle books the outcome the rail gave for a submitted payout.
func (s *Service) settle(ctx context.Context, q Queries, b *book, t *TransferRecord, out RailOutcome) error {
	switch {
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
