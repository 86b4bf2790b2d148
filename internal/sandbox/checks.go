package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// Screener holds payouts of the flag amount for review.
type Screener struct{}

// HoldForReview reports whether the payout is of exactly the flag amount.
func (Screener) HoldForReview(p service.RailPayout) bool { return p.Amount == TriggerFlagAmount }

// IdentityVerifier passes every identity except SSN last four 0000.
type IdentityVerifier struct{}

// VerifyIdentity fails the identity trigger with a field error on ssn_last4.
func (IdentityVerifier) VerifyIdentity(_ context.Context, ssnLast4, _ string) error {
	if ssnLast4 == TriggerIdentityFailSSN {
		return payouts.FieldError("ssn_last4", "we could not verify your identity with these details")
	}
	return nil
}

// Inbox is the sandbox notifier: it keeps every message in the database instead of sending it,
// its body sealed with Key (the service's encryption key), for the app's own staff to read
// through the service (GET /v2/sandbox/messages, the dashboard's inbox).
type Inbox struct {
	Store service.Store
	Key   []byte
	Clock service.Clock // nil is the wall clock
}

// Send keeps m, unless its address carries the bounce trigger.
func (n Inbox) Send(ctx context.Context, m service.Message) error {
	if bounces(m.To) {
		return fmt.Errorf("sandbox: %s does not accept messages: %w", m.To, service.ErrUndeliverable)
	}
	clock := n.Clock
	if clock == nil {
		clock = service.SystemClock{}
	}
	rec, err := service.SealMessage(n.Key, m, clock.Now())
	if err != nil {
		return err
	}
	return n.Store.InTx(ctx, func(q service.Queries) error { return q.SaveMessage(ctx, rec) })
}

// Wire returns cfg with the sandbox wherever cfg names no provider: rails settling after the
// given delays (zero for the defaults), the screener and the identity verifier.
func Wire(cfg service.Config, clock service.Clock, delay, achDelay time.Duration) service.Config {
	if cfg.Rails == nil {
		cfg.Rails = Rails(clock, delay, achDelay)
	}
	if cfg.Screener == nil {
		cfg.Screener = Screener{}
	}
	if cfg.Identity == nil {
		cfg.Identity = IdentityVerifier{}
	}
	return cfg
}
