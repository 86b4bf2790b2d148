package payoutd

import (
	"context"
	"errors"

	"github.com/disburse/disburse/internal/service"
)

// countingStore tells onCommit of every committed write transaction that moved money, that is
// posted a movement: the service's ledger writes, counted from outside the service.
type countingStore struct {
	service.Store
	onCommit func()
}

func (s countingStore) InTx(ctx context.Context, fn func(q service.Queries) error) error {
	return s.InTxWith(ctx, service.Intent{}, fn)
}

func (s countingStore) InTxWith(ctx context.Context, intent service.Intent, fn func(q service.Queries) error) error {
	q := &postingWatch{}
	err := s.Store.InTxWith(ctx, intent, func(tx service.Queries) error {
		q.Queries, q.moved = tx, false // a retried transaction starts over
		return fn(q)
	})
	if err == nil && q.moved {
		s.onCommit()
	}
	return err
}

// postingWatch notes whether a transaction wrote to the ledger.
type postingWatch struct {
	service.Queries
	moved bool
}

func (q *postingWatch) Apply(ctx context.Context, p *service.Plan) error {
	q.moved = q.moved || p.Movement != nil
	return q.Queries.Apply(ctx, p)
}

// errWorkerStopped is the readiness failure of a server whose payout worker is not running.
var errWorkerStopped = errors.New("the payout worker is not running")

// Ready reports whether the server can take traffic: its database answers with the schema up to
// date, and its payout worker runs (unless it was configured without one).
func (s *Server) Ready(ctx context.Context) error {
	if err := s.store.Ready(ctx); err != nil {
		return err
	}
	if s.cfg.WorkerInterval > 0 && !s.workerRunning.Load() {
		return errWorkerStopped
	}
	return nil
}
