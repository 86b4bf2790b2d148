package service

import (
	"context"
	"errors"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// Plan is what one decided write hands the store, whole: the rows it makes and changes as
// values, applied in one call (PlanWrites.Apply). A balance transfer and a payout decide theirs
// (planLedger), as every money write does, and their transaction's events join it at its end
// (Tx.writeEvents).
type Plan struct {
	Transfer   *TransferRecord  // a transfer made, its seq set when applied
	Updates    []TransferUpdate // transfers moved on, each from the status it was decided in
	Movement   *ledger.Movement // its ledger lines, their ids set when applied
	Payments   []YearlyPayment  // additions to users' 1099 totals
	User       *UserRecord      // a user changed by the decision (the 1099 threshold reached)
	Events     []*EventRecord   // their seqs set when applied
	Deliveries []WebhookDeliveryRecord
}

// TransferUpdate is a transfer written over its row, if the row is still in status From (else
// Apply fails with ErrNoRecord), with its history's step when its status changes.
type TransferUpdate struct {
	Transfer TransferRecord
	From     payouts.TransferStatus
}

// YearlyPayment is an addition to a user's payments in a calendar year, the 1099 total.
type YearlyPayment struct {
	AppID, UserID string
	Year          int
	Amount        payouts.Money
}

// PlanWrites apply plans.
type PlanWrites interface {
	// Apply writes p in the open transaction, all or nothing: when a guarded delta of its
	// movement would overdraw its account, as the batch's running balances have it, it is
	// ErrOverdraft and nothing of p is written. A pending posting it settles that is no longer
	// pending is ErrNoRecord.
	Apply(ctx context.Context, p *Plan) error
	// NumberPostings gives new postings their ids before their plan is applied, so that the
	// decision answers with them and its events show them.
	NumberPostings(ctx context.Context, postings []*ledger.Posting) error
}

// empty reports whether p writes nothing.
func (p *Plan) empty() bool {
	return p.Transfer == nil && len(p.Updates) == 0 && p.Movement == nil && len(p.Payments) == 0 && p.User == nil && len(p.Events) == 0 && len(p.Deliveries) == 0
}

// apply applies the transaction's plan so far and starts a new one; an overdraft is the
// request's insufficient funds.
func (q *Tx) apply(ctx context.Context) error {
	p := q.plan
	q.plan = Plan{}
	if p.empty() {
		return nil
	}
	err := q.Apply(ctx, &p)
	if errors.Is(err, ErrOverdraft) {
		return insufficientFunds()
	}
	return err
}

// planLedger books a request's movement, its payment towards the 1099 threshold and the user it
// changes into its transaction's plan, applied when the transaction ends (inTxWith) or, for a
// batch's item, when the item is decided (batchItem).
type planLedger struct{ q *Tx }

func (l planLedger) account(ctx context.Context, appID string, kind ledger.Kind, ref string) (int64, error) {
	a, err := l.q.EnsureAccount(ctx, appID, kind, ref)
	if err != nil {
		return 0, err
	}
	return a.ID, nil
}

func (l planLedger) post(ctx context.Context, m ledger.Movement) error {
	if l.q.plan.Movement != nil {
		return errors.New("service: a plan holds one movement")
	}
	if err := l.q.NumberPostings(ctx, m.Made()); err != nil {
		return err
	}
	l.q.plan.Movement = &m
	return nil
}

// addPayment decides from the batch's running total (YearlyPayments, inside a transaction) and
// the payments the plan holds already.
func (l planLedger) addPayment(ctx context.Context, u *UserRecord, year int, amount payouts.Money) (payouts.Money, error) {
	total, err := l.q.YearlyPayments(ctx, u.AppID, u.ID, year)
	if err != nil {
		return 0, err
	}
	for _, p := range l.q.plan.Payments {
		if p.AppID == u.AppID && p.UserID == u.ID && p.Year == year {
			total += p.Amount
		}
	}
	l.q.plan.Payments = append(l.q.plan.Payments, YearlyPayment{AppID: u.AppID, UserID: u.ID, Year: year, Amount: amount})
	return total + amount, nil
}

// userChanged keeps u in the plan; its events render it as the plan writes it.
func (l planLedger) userChanged(_ context.Context, before payouts.User, u *UserRecord) error {
	l.q.plan.User = u
	l.q.userNoted(before, u, func(context.Context, Queries) (any, error) { return u.User, nil })
	return nil
}
