package service

import (
	"context"

	"github.com/disburse/disburse/internal/ledger"

	"github.com/disburse/disburse/payouts"
)

// GetTransaction returns one ledger line.
func (s *Service) GetTransaction(ctx context.Context, appID string, id int64) (*payouts.Transaction, error) {
	rec, err := s.store.GetTransaction(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "transaction")
	}
	lines := []ledger.Posting{*rec}
	if err := withAppWallet(ctx, s.store, appID, lines); err != nil {
		return nil, err
	}
	t := transactionOf(lines[0])
	return &t, nil
}

// ListTransactions returns a page of ledger lines, newest first.
func (s *Service) ListTransactions(ctx context.Context, appID string, page payouts.Page, f payouts.TransactionFilter) (*payouts.List[payouts.Transaction], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if err := checkTransactionFilter(f); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListTransactions(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	if err := withAppWallet(ctx, s.store, appID, recs); err != nil {
		return nil, err
	}
	out := &payouts.List[payouts.Transaction]{HasMore: more, Data: make([]payouts.Transaction, len(recs))}
	for i := range recs {
		out.Data[i] = transactionOf(recs[i])
	}
	return out, nil
}

// SummarizeTransactions counts the ledger lines f matches and sums those into and out of the
// app's wallet.
func (s *Service) SummarizeTransactions(ctx context.Context, appID string, f payouts.TransactionFilter) (*payouts.Summary, error) {
	if err := checkTransactionFilter(f); err != nil {
		return nil, err
	}
	sum, err := s.store.SummarizeTransactions(ctx, appID, f)
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// checkTransactionFilter names every problem of a transaction filter.
func checkTransactionFilter(f payouts.TransactionFilter) error {
	p := payouts.Problems{}
	if f.UserID != "" && !payouts.ValidID(f.UserID) {
		p.Add("user_id", "is not a valid id")
	}
	if f.Type != "" && !f.Type.Valid() {
		p.Add("type", "must be balance, refill, payout, payment, fee or surrogate")
	}
	if f.Status != "" && !payouts.ValidTransactionStatus(f.Status) {
		p.Add("status", "must be pending, posted or voided")
	}
	f.Range.Check(p)
	return p.Err()
}
