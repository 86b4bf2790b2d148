package payoutd

import (
	"context"

	"github.com/disburse/disburse/internal/store"
)

// Prune deletes the events, webhook deliveries and attempts, and outbox messages older than the
// retention that are done with (store.Store.Prune); nothing when the retention keeps everything.
func (s *Server) Prune(ctx context.Context) (store.Pruned, error) {
	if s.cfg.Retention <= 0 {
		return store.Pruned{}, nil
	}
	return s.store.Prune(ctx, s.now().Add(-s.cfg.Retention))
}

// pruneOnce runs one periodic prune and logs what it deleted.
func (s *Server) pruneOnce(ctx context.Context) {
	p, err := s.Prune(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.WarnContext(ctx, "retention: pruning failed", "err", err)
	case p != store.Pruned{}:
		s.log.InfoContext(ctx, "retention: pruned", "events", p.Events, "deliveries", p.Deliveries, "attempts", p.Attempts, "messages", p.Messages)
	}
}
