package store

import (
	"context"
	"errors"

	"github.com/disburse/disburse/internal/service"
)

// Apply writes a decided plan in a write transaction (service.PlanWrites): its movement first,
// which checks its guards against the batch's running balances before anything of the plan is
// kept (post), then its rows held with the batch's, written before the commit (held.go); the
// user it changes is the one statement it sends.
func (q *Queries) Apply(ctx context.Context, p *service.Plan) (err error) {
	defer wrap(&err, "apply a plan")
	if q.job == nil {
		return errors.New("store: a plan is applied in a write transaction only")
	}
	q.applying = true
	defer func() { q.applying = false }()
	if p.Movement != nil {
		if err := q.post(ctx, *p.Movement); err != nil {
			return err
		}
	}
	if p.Transfer != nil {
		if err := q.CreateTransfer(ctx, p.Transfer); err != nil {
			return err
		}
	}
	for _, y := range p.Payments {
		if err := q.holdYearlyPayment(ctx, yearlyPayment{AppID: y.AppID, UserID: y.UserID, Year: y.Year, Amount: int64(y.Amount)}); err != nil {
			return err
		}
	}
	if p.User != nil {
		if err := q.UpdateUser(ctx, p.User); err != nil {
			return err
		}
	}
	if err := q.InsertEvents(ctx, p.Events); err != nil {
		return err
	}
	return q.InsertWebhookDeliveries(ctx, p.Deliveries)
}

// planTables name the tables a plan writes, for HookWrites.
var planTables = []struct {
	table table
	name  string
}{
	{transfersTable, "transfers"}, {postingsTable, "postings"}, {accountsTable, "ledger_accounts"},
	{taxYearsTable, "tax_years"}, {eventsTable, "events"}, {deliveriesTable, "webhook_deliveries"},
	{chainTable, "ledger_chain"},
}

// HookWrites makes fn hear of every write a write transaction's job makes to a table a plan
// writes: a statement said to write it, or a row held for it, and whether Apply made it. Set
// before the store is used; tests hold a request that decides a plan to writing through Apply
// alone.
func (s *Store) HookWrites(fn func(table string, inApply bool)) { s.writeHook = fn }

// wrote tells the write hook, if any, of a write of the job to tables.
func (q *Queries) wrote(tables table) {
	if q.writeHook == nil {
		return
	}
	for _, t := range planTables {
		if tables&t.table != 0 {
			q.writeHook(t.name, q.applying)
		}
	}
}
