package sandbox

import (
	"context"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// Default settlement delays of the sandbox rails.
const (
	DefaultDelay    = 5 * time.Second
	DefaultACHDelay = 20 * time.Second
)

// Rail settles every payout after a fixed delay, except those the triggers name.
type Rail struct {
	Platform payouts.Platform
	Delay    time.Duration
	Clock    service.Clock
}

// Submit accepts the payout unless the fail trigger says to reject it. Its external id derives
// from the idempotency key alone, so a payout submitted again gets the same id: the sandbox keeps
// no state, and a repeated submission is the same payment.
func (r *Rail) Submit(_ context.Context, idempotencyKey string, p service.RailPayout) (service.RailReceipt, error) {
	if rejects(p.Method) {
		return service.RailReceipt{}, &service.RailRejection{Reason: "the sandbox " + p.Method.Platform.Label() + " account refuses payments"}
	}
	id := strings.ReplaceAll(idempotencyKey, "-", "")
	return service.RailReceipt{ExternalID: "sbx_" + string(r.Platform) + "_" + id[:16], SettleAt: r.Clock.Now().Add(r.Delay)}, nil
}

// Outcome settles the payout, or fails it for the slow-fail trigger.
func (r *Rail) Outcome(_ context.Context, p service.RailPayout, _ string) (service.RailOutcome, error) {
	if slowFails(p.Method) {
		return service.RailOutcome{Failed: true, Reason: "the sandbox " + p.Method.Platform.Label() + " account was closed"}, nil
	}
	return service.RailOutcome{Settled: true}, nil
}

// Rails returns a sandbox rail per platform: instant platforms settle after instant, ACH after
// ach. Zero delays take the defaults; a nil clock is the wall clock.
func Rails(clock service.Clock, instant, ach time.Duration) map[payouts.Platform]service.Rail {
	if clock == nil {
		clock = service.SystemClock{}
	}
	if instant == 0 {
		instant = DefaultDelay
	}
	if ach == 0 {
		ach = DefaultACHDelay
	}
	rails := map[payouts.Platform]service.Rail{}
	for _, p := range payouts.Platforms {
		d := instant
		if p == payouts.PlatformACH {
			d = ach
		}
		rails[p] = &Rail{Platform: p, Delay: d, Clock: clock}
	}
	return rails
}
