package service

import (
	"context"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// settlePostings commits or voids the pending postings of a transfer, writing extra lines with
// them.
func (s *Service) settlePostings(ctx context.Context, q *Tx, b *book, t *TransferRecord, op ledger.Op, extra []line) error {
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
	made, err := b.move(ctx, t.ID, extra, settle)
	if err != nil {
		return err
	}
	q.transferSettled(t.ID, append(postings, made...))
	return nil
}

// failPayout releases a payout's reservations and, for a funded payout, moves the funding back to
// the app.
func (s *Service) failPayout(ctx context.Context, q *Tx, b *book, t *TransferRecord, from payouts.TransferStatus, reason string) error {
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
	q.planTransferUpdate(t, from)
	return nil
}

// settle books what the rail says became of a payout: the worker's poll of a pending payout
// (record) and a rail's notification (ReportRailOutcome) both come here. A pending payout
// settles, fails, or waits for out.RetryAt; a completed one that came back is returned; anything
// else is a repeated report and changes nothing. The status t was read in is the guard of its
// update, so of two reports racing one moves the payout and the other finds it moved. The
// provider's reference an outcome carries is kept with the payout by the same write.
func (s *Service) settle(ctx context.Context, q *Tx, b *book, t *TransferRecord, out RailOutcome) error {
	if out.Reference != "" {
		t.RailReference = out.Reference
	}
	switch {
	case t.Status == payouts.TransferCompleted && out.Returned:
		return s.returnPayout(ctx, q, b, t, out.Reason)
	case t.Status != payouts.TransferPending:
		return nil
	case out.Failed || out.Returned:
		return s.failPayout(ctx, q, b, t, payouts.TransferPending, out.Reason)
	case out.Settled:
		if err := s.settlePostings(ctx, q, b, t, ledger.OpCommit, nil); err != nil {
			return err
		}
		t.Status, t.FailureReason = payouts.TransferCompleted, "" // a reason it waited for an operator, if any
	default:
		t.SettleAt = out.RetryAt
	}
	t.Updated = s.now()
	q.planTransferUpdate(t, payouts.TransferPending)
	return nil
}

// returnPayout gives back a completed payout whose money came back: each of its posted lines is
// reversed by a posted line of the same type, so it ends as a failed payout ends: the payee's
// wallet has the amount back, the fee is refunded to whoever paid it, and a funded payout's
// funding is back in the app's wallet. The payout becomes failed with the rail's reason.
func (s *Service) returnPayout(ctx context.Context, q *Tx, b *book, t *TransferRecord, reason string) error {
	postings, err := q.PostingsOfTransfers(ctx, t.AppID, []string{t.ID})
	if err != nil {
		return err
	}
	// The book knows an account's kind once it has resolved it, and guards only the kinds it
	// knows: every account a payout's lines touch is resolved before the reversal.
	if _, err := b.clearing(ctx, t.ExternalData.Platform); err != nil {
		return err
	}
	if _, err := b.fees(ctx); err != nil {
		return err
	}
	if _, err := b.app(ctx); err != nil {
		return err
	}
	if t.UserID != nil {
		if _, err := b.account(ctx, ledger.UserWallet, *t.UserID, "", *t.UserID); err != nil {
			return err
		}
	}
	var lines []line
	for _, p := range postings {
		if p.State != ledger.Posted {
			continue
		}
		lines = append(lines, line{
			from:   party{account: p.Credit, name: p.DestinationName, userID: p.UserID},
			to:     party{account: p.Debit, name: p.SourceName, userID: p.UserID},
			amount: payouts.Money(p.Amount), typ: payouts.TransactionType(p.Type),
		})
	}
	made, err := b.move(ctx, t.ID, lines, nil)
	if err != nil {
		return err
	}
	q.transferSettled(t.ID, append(postings, made...))
	if reason == "" {
		reason = "the rail returned the payout"
	}
	t.Status, t.FailureReason, t.Updated = payouts.TransferFailed, reason, s.now()
	q.planTransferUpdate(t, payouts.TransferCompleted)
	return nil
}

// ReportRailOutcome books what a rail's notification says became of one of its payouts, through
// the same settle as the worker's poll, in a transaction that reads (and on PostgreSQL locks)
// the payout first: a notification and a poll racing move it once, and a repeated notification
// changes nothing. A notification with no news, of a payout that is not ours on platform, or
// naming another rail id than the one recorded, is ignored.
func (s *Service) ReportRailOutcome(ctx context.Context, platform payouts.Platform, r RailReport) error {
	if !r.Outcome.news() {
		return nil
	}
	return s.inTx(ctx, func(q *Tx) error {
		t, err := q.GetPayoutOnRail(ctx, platform, r.TransferID)
		if errors.Is(err, ErrNoRecord) {
			s.log.Warn("rail notification of an unknown payout ignored", "platform", platform, "transfer", r.TransferID)
			return nil
		}
		if err != nil {
			return err
		}
		switch known := t.ExternalData.ExternalID; {
		case known == "":
			// The notification overtook the receipt; the receipt's record will find the payout
			// moved on and drop itself.
			t.ExternalData.ExternalID = r.ExternalID
		case r.ExternalID != "" && r.ExternalID != known:
			s.log.Warn("rail notification of another rail id ignored", "platform", platform, "transfer", t.ID,
				"external_id", r.ExternalID, "recorded", known)
			return nil
		}
		b, err := s.planBook(ctx, q, t.AppID)
		if err != nil {
			return err
		}
		t.LeaseUntil = time.Time{}
		return s.settle(ctx, q, b, t, r.Outcome)
	})
}
