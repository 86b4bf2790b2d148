package service

import (
	"context"
	"time"

	"github.com/disburse/disburse/payouts"
)

// Rail moves money out to payees on one platform. No real rail is reachable from here, so
// payoutd wires in package sandbox's; real ones plug in behind the same interface.
type Rail interface {
	// Submit hands a payout to the rail. idempotencyKey is the same on every attempt for one
	// payout (its transfer id): a rail must answer a repeated key with the first receipt and not
	// pay twice, since a worker that died after the call is followed by another calling again. A
	// *RailRejection error fails the payout at once; any other error leaves it to be retried.
	Submit(ctx context.Context, idempotencyKey string, p RailPayout) (RailReceipt, error)
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
	// AccountNumber is the bank account number of an ACH method, opened from its sealed copy
	// for Submit alone (a rail paying a bank account must send it); empty otherwise.
	AccountNumber string
	// Memo is the payout's memo for its payee (its payout link's), and AppName the name of the
	// app paying, both for Submit alone: a rail whose provider shows the payee a note (Venmo
	// requires one) writes it from them.
	Memo    string
	AppName string
	// Created is when the payout was made: no attempt to submit it is older, so a rail whose
	// provider forgets idempotency keys after a while knows when one may have been forgotten.
	Created time.Time
}

// RailReceipt is the rail's acknowledgement: its id for the payout and when to ask again.
type RailReceipt struct {
	ExternalID string
	SettleAt   time.Time
}

// RailOutcome is the end of a payout on a rail, or a time to ask again. At most one of Settled,
// Failed and Returned is set.
type RailOutcome struct {
	Settled bool
	Failed  bool
	// Returned is money that came back after the rail took the payout, settled or not yet:
	// unclaimed, returned, reversed, an ACH return. The payout ends failed as if it had never
	// gone (settlement.go), once however often the rail says so.
	Returned bool
	Reason   string    // why it failed or came back, as the payout's failure reason
	RetryAt  time.Time // neither settled, failed nor returned yet
	// Reference is the payout's id in the provider's reports, when the rail learns one that is not
	// its receipt's ExternalID (PayPal's transaction id of the item); kept as the payout's
	// RailReference for reconciliation. Empty: nothing new.
	Reference string
}

// news reports whether the outcome ends the payout or changes how it ended.
func (o RailOutcome) news() bool { return o.Settled || o.Failed || o.Returned }

// RailReport is what a rail's notification (a provider's webhook, verified by the rail) says
// became of one payout: our transfer id, the rail's id for it, and its outcome.
type RailReport struct {
	TransferID string
	ExternalID string
	Outcome    RailOutcome
}

// RailRejection is a rail refusing a payout outright.
type RailRejection struct{ Reason string }

func (r *RailRejection) Error() string { return "rail rejected the payout: " + r.Reason }

// RailUnresolved is a rail that cannot learn what became of a payout by reading the provider:
// the provider holds a payment for it that the rail cannot find, or names one that is not it.
// Submitting again could pay twice and asking again would loop, so the payout waits for an
// operator: pending, its money reserved, out of the worker's queue (RailNeedsOperator), the
// reason in its failure_reason and counted by the worker's metrics. A provider's notification
// still settles it.
type RailUnresolved struct{ Reason string }

func (r *RailUnresolved) Error() string { return "rail outcome unresolved: " + r.Reason }

// RailItems is a rail that can list the payments it made, for reconciliation.
type RailItems interface {
	// Items returns the payments the rail created from from up to to.
	Items(ctx context.Context, from, to time.Time) ([]RailItem, error)
}

// RailItem is one payment as the provider keeps it.
type RailItem struct {
	ExternalID string
	// TransferID and AppID name our payout as the provider recorded it (the metadata we sent);
	// empty for a payment made outside disburse.
	TransferID string
	AppID      string
	Amount     payouts.Money
	// Status is the provider's, in our words: pending, completed, or failed (returned too).
	Status  payouts.TransferStatus
	Created time.Time
}

// Screener decides whether a payout is held for review (flagged) before it reaches its rail. A
// user flagged by compliance is always held; the screener adds the provider's own rules (the
// sandbox's flag amount). It is its own interface rather than part of Rail because it is asked
// inside the payout's transaction and must not reach the network.
type Screener interface {
	HoldForReview(p RailPayout) bool
}

// NoProviderHolds is the screener of a service outside sandbox mode: no provider adds rules of
// its own, so a payout is held only by its payee's compliance flag or the sanctions list.
type NoProviderHolds struct{}

// HoldForReview holds nothing.
func (NoProviderHolds) HoldForReview(RailPayout) bool { return false }

// DefaultFees are the payout fees per platform, in cents.
func DefaultFees() map[payouts.Platform]payouts.Money {
	return map[payouts.Platform]payouts.Money{
		payouts.PlatformPayPal: 25, payouts.PlatformVenmo: 25, payouts.PlatformCashApp: 25, payouts.PlatformACH: 0,
	}
}
