package payoutd

import (
	"context"
	"time"

	"github.com/disburse/disburse/internal/service"
)

// CheckLedgers checks the invariants of every app's and organization's ledger (payoutd check).
func (s *Server) CheckLedgers(ctx context.Context) (service.LedgerReport, error) {
	return s.service.CheckAllLedgers(ctx)
}

// every runs job every interval in the background until ctx ends or the returned stop is
// called; stop waits for a job under way to end, so Close never pulls the store from under it.
func (s *Server) every(ctx context.Context, interval time.Duration, job func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				job(ctx)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// checkLedgersOnce runs one periodic check: an error in the log for each violation, a warning
// when the ledgers could not be read, and the outcome in the metrics.
func (s *Server) checkLedgersOnce(ctx context.Context) {
	report, err := s.CheckLedgers(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.WarnContext(ctx, "ledger check could not read the ledgers", "err", err)
		}
		return
	}
	for _, v := range report.Violations {
		s.log.ErrorContext(ctx, "ledger invariant violated", "app", v.AppID, "problems", v.Problems)
	}
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.LedgerChecked(len(report.Violations), s.now())
	}
}

// now is the configured clock's time.
func (s *Server) now() time.Time {
	if s.cfg.Clock != nil {
		return s.cfg.Clock.Now()
	}
	return time.Now()
}
