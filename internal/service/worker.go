package service

import (
	"context"
	"time"
)

// RunWorker submits due payouts to their rails, settles submitted ones, delivers payout links
// and runs transfer batches every interval, and forgets expired idempotency keys every hour,
// until ctx ends.
func (s *Service) RunWorker(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var lastPurge time.Time
	for {
		if now := s.now(); now.Sub(lastPurge) >= time.Hour {
			if _, err := s.PurgeIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("purging idempotency keys", "err", err)
			}
			lastPurge = now
		}
		if _, err := s.SettleDue(ctx, 100); err != nil && ctx.Err() == nil {
			s.log.Error("submitting and settling payouts", "err", err)
		}
		if _, err := s.DeliverDue(ctx, 100); err != nil && ctx.Err() == nil {
			s.log.Error("delivering payout links", "err", err)
		}
		if _, err := s.ProcessBatches(ctx, 100); err != nil && ctx.Err() == nil {
			s.log.Error("processing transfer batches", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
