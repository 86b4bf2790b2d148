package service

import (
	"context"
	"strings"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// CreateTransfer moves money between the app and a user at once: a negative amount from the app
// to the user, a positive one from the user to the app.
func (s *Service) CreateTransfer(ctx context.Context, appID string, req payouts.CreateTransferRequest) (*payouts.Transfer, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var made *payouts.Transfer
	transferID := s.transferIDs.New(appID)
	id, replayed, err := s.idempotentAs(ctx, Intent{UsersToRead: []string{req.UserID}}, appID, "transfer", req.IdempotencyKey, transferID, req, false, func(q *Tx) (string, error) {
		b, err := s.planBook(ctx, q, appID)
		if err != nil {
			return "", err
		}
		t, err := s.balanceTransfer(ctx, q, b, transferID, req)
		if err != nil {
			return "", err
		}
		made = t
		return t.ID, nil
	})
	return s.answer(ctx, appID, id, made, replayed, err)
}

// written is the transfer a write transaction just made, as a read of it would answer, so the
// answer to a create costs no reads. (fn may run again on a retry: the last run is the one
// committed.)
func written(t *TransferRecord, postings []ledger.Posting) *payouts.Transfer {
	lines := make([]payouts.Transaction, len(postings))
	for i, p := range postings {
		lines[i] = transactionOf(p)
	}
	return firstStatus(t.Transfer, lines)
}

// firstStatus is a transfer just created, with its ledger lines: its history is its one status.
func firstStatus(t payouts.Transfer, lines []payouts.Transaction) *payouts.Transfer {
	t.Transactions = lines
	t.StatusHistory = []payouts.StatusChange{{Status: t.Status, At: t.Created, Reason: t.FailureReason}}
	return &t
}

// answer returns the transfer a create made, or reads it when the create was a replay of an
// earlier request.
func (s *Service) answer(ctx context.Context, appID, id string, made *payouts.Transfer, replayed bool, err error) (*payouts.Transfer, error) {
	switch {
	case err != nil:
		return nil, err
	case replayed || made == nil:
		return s.GetTransfer(ctx, appID, id)
	}
	return made, nil
}

// balanceTransfer decides a transfer of money between the app of the book b (a planBook) and a
// user into q's plan and returns the transfer as the plan writes it, whose id is id. Whatever
// can refuse it (no such user, an overdraft when the plan is applied) refuses before anything of
// the plan is written, so a batch's items run one after another in one transaction without a
// savepoint each (runBatchItems). The one write before a refusal is a first-paid user's wallet,
// made empty to be posted to, which stays.
func (s *Service) balanceTransfer(ctx context.Context, q *Tx, b *book, id string, req payouts.CreateTransferRequest) (*payouts.Transfer, error) {
	user, err := s.bookUser(ctx, q, b, req.UserID)
	if err != nil {
		return nil, err
	}
	postings, err := s.bookBalanceTransfer(ctx, b, id, user, req)
	if err != nil {
		return nil, err
	}
	t := s.newTransfer(id, b.appID, payouts.TransferBalance, payouts.Money(req.Amount), req.Metadata)
	t.UserID = &user.ID
	t.Status = payouts.TransferCompleted
	t.IdempotencyKey = req.IdempotencyKey
	t.TaxExempt = req.TaxExempt
	q.plan.Transfer = t
	q.transferCreated(t)
	return q.transferWritten(t, postings), nil
}

// bookBalanceTransfer books a balance transfer's line, guarded against overdraft (a refusal books
// nothing), and counts money paid to the user towards their 1099 threshold; on a preflight's book, in its
// memory alone.
func (s *Service) bookBalanceTransfer(ctx context.Context, b *book, transferID string, user *UserRecord,
	req payouts.CreateTransferRequest) ([]ledger.Posting, error) {
	app, wallet, err := b.appAndUser(ctx, &user.User)
	if err != nil {
		return nil, err
	}
	amount := payouts.Money(req.Amount)
	from, to := wallet, app
	if amount < 0 {
		from, to, amount = app, wallet, -amount
	}
	postings, err := b.move(ctx, transferID, []line{{from: from, to: to, amount: amount, typ: payouts.TransactionBalance}}, nil)
	if err != nil {
		return nil, err
	}
	if req.Amount < 0 && !req.TaxExempt {
		if err := s.countPayment(ctx, b.led, user, amount); err != nil {
			return nil, err
		}
	}
	return postings, nil
}

// newTransfer returns a new transfer of the app with the id given (TransferIDs.New).
func (s *Service) newTransfer(id, appID string, typ payouts.TransferType, amount payouts.Money, md payouts.Metadata) *TransferRecord {
	now := s.now()
	return &TransferRecord{AppID: appID, Updated: now, Transfer: payouts.Transfer{
		ID: id, Created: payouts.NewTime(now), Type: typ, Amount: amount,
		Status: payouts.TransferCreated, Metadata: payouts.NormalizeMetadata(md),
	}}
}

// Deposit funds the app's wallet from its bank: a refill.
func (s *Service) Deposit(ctx context.Context, appID, id string, req payouts.DepositRequest) (*payouts.Transfer, error) {
	if id != appID {
		return nil, notFound("app")
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var made *payouts.Transfer
	tid, replayed, err := s.idempotent(ctx, appID, "deposit", req.IdempotencyKey, req, false, func(q *Tx) (string, error) {
		b, app, err := s.appBook(ctx, q, appID)
		if err != nil {
			return "", err
		}
		bank, err := b.bank(ctx)
		if err != nil {
			return "", err
		}
		t := s.newTransfer(s.transferIDs.New(appID), appID, payouts.TransferRefill, payouts.Money(req.Amount), req.Metadata)
		t.Status = payouts.TransferCompleted
		t.IdempotencyKey = req.IdempotencyKey
		t.ExternalData = payouts.ExternalData{ExternalID: "dep_" + strings.ReplaceAll(t.ID[:13], "-", "")}
		postings, err := b.move(ctx, t.ID, []line{{from: bank, to: app, amount: payouts.Money(req.Amount), typ: payouts.TransactionRefill}}, nil)
		if err != nil {
			return "", err
		}
		q.plan.Transfer = t
		q.transferCreated(t)
		made = q.transferWritten(t, postings)
		return t.ID, nil
	})
	return s.answer(ctx, appID, tid, made, replayed, err)
}

// GetTransfer returns a transfer with its transactions.
func (s *Service) GetTransfer(ctx context.Context, appID, id string) (*payouts.Transfer, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("transfer")
	}
	rec, err := s.store.GetTransfer(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "transfer")
	}
	out, err := s.withTransactions(ctx, appID, []TransferRecord{*rec})
	if err != nil {
		return nil, err
	}
	if out[0].StatusHistory, err = s.store.TransferHistory(ctx, appID, id); err != nil {
		return nil, err
	}
	return &out[0], nil
}

// withTransactions returns the transfers with their ledger lines, read in one query.
func (s *Service) withTransactions(ctx context.Context, appID string, recs []TransferRecord) ([]payouts.Transfer, error) {
	out := make([]payouts.Transfer, len(recs))
	for i := range recs {
		out[i] = recs[i].Transfer
	}
	return withLines(ctx, s.store, appID, out, nil)
}

// withLines sets the ledger lines of the app's transfers ts: for those in known, the postings it
// holds for them (all of each one's); for the others, read through q in one query.
func withLines(ctx context.Context, q Reads, appID string, ts []payouts.Transfer, known map[string][]ledger.Posting) ([]payouts.Transfer, error) {
	var postings []ledger.Posting
	var unread []string
	for _, t := range ts {
		if lines, ok := known[t.ID]; ok {
			postings = append(postings, lines...)
		} else {
			unread = append(unread, t.ID)
		}
	}
	if len(unread) > 0 {
		read, err := q.PostingsOfTransfers(ctx, appID, unread)
		if err != nil {
			return nil, err
		}
		postings = append(postings, read...)
	}
	if err := withAppWallet(ctx, q, appID, postings); err != nil {
		return nil, err
	}
	byTransfer := make(map[string][]payouts.Transaction, len(ts))
	for _, p := range postings {
		byTransfer[p.TransferID] = append(byTransfer[p.TransferID], transactionOf(p))
	}
	for i := range ts {
		ts[i].Transactions = byTransfer[ts[i].ID]
		if ts[i].Transactions == nil {
			ts[i].Transactions = []payouts.Transaction{}
		}
	}
	return ts, nil
}

// ListTransfers returns a page of transfers, newest first.
func (s *Service) ListTransfers(ctx context.Context, appID string, page payouts.Page, f payouts.TransferFilter) (*payouts.List[payouts.Transfer], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if err := checkTransferFilter(f); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListTransfers(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	data, err := s.withTransactions(ctx, appID, recs)
	if err != nil {
		return nil, err
	}
	if err := s.withPayoutHistories(ctx, appID, data); err != nil {
		return nil, err
	}
	return &payouts.List[payouts.Transfer]{HasMore: more, Data: data}, nil
}

// SummarizeTransfers counts the transfers f matches and sums the money they moved in and out of
// the app's wallet.
func (s *Service) SummarizeTransfers(ctx context.Context, appID string, f payouts.TransferFilter) (*payouts.Summary, error) {
	if err := checkTransferFilter(f); err != nil {
		return nil, err
	}
	sum, err := s.store.SummarizeTransfers(ctx, appID, f)
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// checkTransferFilter names every problem of a transfer filter.
func checkTransferFilter(f payouts.TransferFilter) error {
	p := payouts.Problems{}
	if f.UserID != "" && !payouts.ValidID(f.UserID) {
		p.Add("user_id", "is not a valid id")
	}
	if f.Type != "" && !f.Type.Valid() {
		p.Add("type", "must be refill, payout or balance")
	}
	if f.Status != "" && !f.Status.Valid() {
		p.Add("status", "must be created, pending, completed, failed or flagged")
	}
	f.Range.Check(p)
	return p.Err()
}

// withPayoutHistories sets the status history of the payouts among ts, read in one query: a
// payout completes after it is made, and a list (an export) needs to say when.
func (s *Service) withPayoutHistories(ctx context.Context, appID string, ts []payouts.Transfer) error {
	var ids []string
	for _, t := range ts {
		if t.Type == payouts.TransferPayout {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	histories, err := s.store.TransferHistories(ctx, appID, ids)
	if err != nil {
		return err
	}
	for i := range ts {
		ts[i].StatusHistory = histories[ts[i].ID]
	}
	return nil
}
