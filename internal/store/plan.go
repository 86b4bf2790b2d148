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
	for i := range p.Updates {
		if err := q.UpdateTransfer(ctx, &p.Updates[i].Transfer, p.Updates[i].From); err != nil {
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

// HookWrites makes fn hear of every statement a write transaction's job sends and of every row
// it holds (as the statement that will insert it), and whether Apply made it. Set before the
// store is used; tests hold a request that decides a plan to writing through Apply alone.
func (s *Store) HookWrites(fn func(statement string, inApply bool)) { s.writeHook = fn }

// wrote tells the write hook, if any, of a statement of the job.
func (q *Queries) wrote(statement string) {
	if q.writeHook != nil {
		q.writeHook(statement, q.applying)
	}
}
