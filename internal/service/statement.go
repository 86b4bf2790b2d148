package service

import (
	"context"
	"errors"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// Statement is the app's wallet, or a user's, over a period, from the ledger's postings: the
// balance as of the start, every line posted in the period with the balance after it, and the
// closing balance. It is the one place money in and out of a wallet is defined: in is a posted
// line crediting the wallet, out a posted line debiting it; pending lines are counted when they
// post, voided ones nowhere.
func (s *Service) Statement(ctx context.Context, appID string, r payouts.StatementRequest) (*payouts.Statement, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	out := &payouts.Statement{From: payouts.NewTime(r.From), To: payouts.NewTime(r.To),
		ByType: []payouts.TypeTotal{}, Movements: []payouts.StatementLine{}}
	kind, ref := ledger.AppWallet, ""
	if r.UserID != "" {
		if _, err := s.getUser(ctx, s.store, appID, r.UserID); err != nil {
			return nil, err
		}
		id := r.UserID
		out.UserID, kind, ref = &id, ledger.UserWallet, r.UserID
	}
	account, err := s.store.FindAccount(ctx, appID, kind, ref)
	if errors.Is(err, ErrNoRecord) {
		return out, nil // a wallet no money ever reached: nothing moved, balances zero
	}
	if err != nil {
		return nil, err
	}
	opening, lines, err := s.store.Statement(ctx, appID, account.ID, r.From, r.To, payouts.MaxStatementLines)
	if err != nil {
		return nil, err
	}
	if len(lines) > payouts.MaxStatementLines {
		return nil, payouts.TooManyStatementLines()
	}
	out.OpeningBalance = payouts.Money(opening)
	balance := out.OpeningBalance
	byType := map[string]*payouts.TypeTotal{}
	var types []string // in the order they first appear
	for _, p := range lines {
		line := payouts.StatementLine{TransactionID: p.ID, TransferID: p.TransferID, Posted: payouts.NewTime(p.Posted),
			Type: payouts.TransactionType(p.Type), Amount: payouts.Money(p.Amount), Counterparty: p.SourceName}
		if p.UserID != "" {
			id := p.UserID
			line.UserID = &id
		}
		total := byType[p.Type]
		if total == nil {
			total = &payouts.TypeTotal{Type: p.Type}
			byType[p.Type], types = total, append(types, p.Type)
		}
		total.Count++
		if p.Debit == account.ID {
			line.Amount, line.Counterparty = -line.Amount, p.DestinationName
			total.MoneyOut -= line.Amount
			out.MoneyOut -= line.Amount
		} else {
			total.MoneyIn += line.Amount
			out.MoneyIn += line.Amount
		}
		balance += line.Amount
		line.Balance = balance
		out.Movements = append(out.Movements, line)
	}
	out.ClosingBalance = balance
	for _, t := range types {
		out.ByType = append(out.ByType, *byType[t])
	}
	return out, nil
}
