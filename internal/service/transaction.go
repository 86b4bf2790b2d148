package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// GetTransaction returns one ledger line.
func (s *Service) GetTransaction(ctx context.Context, appID string, id int64) (*payouts.Transaction, error) {
	rec, err := s.store.GetTransaction(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "transaction")
	}
	t := transactionOf(*rec)
	return &t, nil
}

// ListTransactions returns a page of ledger lines, newest first.
func (s *Service) ListTransactions(ctx context.Context, appID string, page payouts.Page, f payouts.TransactionFilter) (*payouts.List[payouts.Transaction], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if f.UserID != "" && !payouts.ValidID(f.UserID) {
		return nil, payouts.FieldError("user_id", "is not a valid id")
	}
	recs, more, err := s.store.ListTransactions(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.Transaction]{HasMore: more, Data: make([]payouts.Transaction, len(recs))}
	for i := range recs {
		out.Data[i] = transactionOf(recs[i])
	}
	return out, nil
}
