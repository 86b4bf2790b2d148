package service

import (
	"context"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// submitRetry is how long a payout waits before its submission to a rail is tried again after
// the rail could not be reached.
const submitRetry = 30 * time.Second

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
