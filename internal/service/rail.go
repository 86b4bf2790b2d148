package service

import (
	"context"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"
)

// Rail moves money out to payees on one platform. No real rail is reachable from here, so each
// platform has a sandbox rail; real ones plug in behind the same interface.
type Rail interface {
	// Submit hands a payout to the rail. A *RailRejection error fails the payout at once; any
	// other error leaves it to be retried.
	Submit(ctx context.Context, p RailPayout) (RailReceipt, error)
	// Outcome asks what became of a submitted payout.
	Outcome(ctx context.Context, p RailPayout, externalID string) (RailOutcome, error)
}

// RailPayout is what a rail is told of a payout.
type RailPayout struct {
	TransferID string
	AppID      string
	UserID     string
	Amount     payouts.Money
	Method     PayoutMethodRecord
}

// RailReceipt is the rail's acknowledgement: its id for the payout and when to ask again.
type RailReceipt struct {
	ExternalID string
	SettleAt   time.Time
}

// RailOutcome is the end of a payout on a rail, or a time to ask again.
type RailOutcome struct {
	Settled bool
	Failed  bool
	Reason  string
	RetryAt time.Time // neither settled nor failed yet
}

// RailRejection is a rail refusing a payout outright.
type RailRejection struct{ Reason string }

func (r *RailRejection) Error() string { return "rail rejected the payout: " + r.Reason }

// Sandbox test triggers, documented in the README. They are matched against the payout method's
// identifying value (email, handle, phone, cash tag or account number) and the amount.
const (
	// A method whose value contains "slowfail", or whose account number ends in 9999, is accepted
	// and fails when it would have settled.
	TriggerSlowFail       = "slowfail"
	TriggerSlowFailDigits = "9999"
	// A method whose value contains "fail", or whose account number ends in 0000, is rejected at
	// once.
	TriggerFail       = "fail"
	TriggerFailDigits = "0000"
	// A payout of exactly $13.13 is flagged for review.
	TriggerFlagAmount payouts.Money = 1313
)

// SandboxRail settles every payout after a fixed delay, except those the test triggers name.
type SandboxRail struct {
	Platform payouts.Platform
	Delay    time.Duration
	Clock    Clock
}

// methodValue is the identifying value the triggers look at.
func methodValue(m PayoutMethodRecord) string {
	return strings.ToLower(strings.Join([]string{m.Email, m.Handle, m.PhoneNumber, m.CashTag}, " "))
}

// Submit accepts the payout unless a trigger says to reject it.
func (r *SandboxRail) Submit(_ context.Context, p RailPayout) (RailReceipt, error) {
	v := methodValue(p.Method)
	slow := strings.Contains(v, TriggerSlowFail) || p.Method.Mask == TriggerSlowFailDigits
	if !slow && (strings.Contains(v, TriggerFail) || p.Method.Mask == TriggerFailDigits) {
		return RailReceipt{}, &RailRejection{Reason: "the sandbox " + p.Method.Platform.Label() + " account refuses payments"}
	}
	id := strings.ReplaceAll(p.TransferID, "-", "")
	return RailReceipt{ExternalID: "sbx_" + string(r.Platform) + "_" + id[:16], SettleAt: r.Clock.Now().Add(r.Delay)}, nil
}

// Outcome settles the payout, or fails it for the slow-fail trigger.
func (r *SandboxRail) Outcome(_ context.Context, p RailPayout, _ string) (RailOutcome, error) {
	v := methodValue(p.Method)
	if strings.Contains(v, TriggerSlowFail) || p.Method.Mask == TriggerSlowFailDigits {
		return RailOutcome{Failed: true, Reason: "the sandbox " + p.Method.Platform.Label() + " account was closed"}, nil
	}
	return RailOutcome{Settled: true}, nil
}

// SandboxRails returns a sandbox rail per platform: instant platforms settle after instant, ACH
// after ach.
func SandboxRails(clock Clock, instant, ach time.Duration) map[payouts.Platform]Rail {
	if clock == nil {
		clock = SystemClock{}
	}
	rails := map[payouts.Platform]Rail{}
	for _, p := range payouts.Platforms {
		d := instant
		if p == payouts.PlatformACH {
			d = ach
		}
		rails[p] = &SandboxRail{Platform: p, Delay: d, Clock: clock}
	}
	return rails
}

// DefaultFees are the payout fees per platform, in cents.
func DefaultFees() map[payouts.Platform]payouts.Money {
	return map[payouts.Platform]payouts.Money{
		payouts.PlatformPayPal: 25, payouts.PlatformVenmo: 25, payouts.PlatformCashApp: 25, payouts.PlatformACH: 0,
	}
}
