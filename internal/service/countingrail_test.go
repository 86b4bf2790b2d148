package service_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// railStep is what one Submit call of a countingRail does.
type railStep int

const (
	accept      railStep = iota
	unreachable          // the rail cannot be reached: an error, nothing accepted
	crashBefore          // the worker dies before its call reaches the rail
	crashAfter           // the rail accepts, and the worker dies before it records the receipt
	hold                 // the call reaches the rail and waits for its gate to close: a slow rail
)

// countingRail keeps what a real rail's idempotency keeps: one receipt per key, however often
// it is called with it. It settles every payout after settleDelay, and its Submit steps (next,
// in turn; accept when none is left) can make the worker calling it die, by cancelling die.
// With inner set, the calls that reach the rail go on to inner, a real rail in front of its
// provider's double, whose idempotency alone then keeps a payout paid once.
type countingRail struct {
	clock service.Clock
	inner service.Rail
	// payout is the request a test's payouts are made from; fee the app pays for each.
	payout payouts.CreatePayoutRequest
	fee    payouts.Money
	double *stripetest.Server // the Stripe double behind inner, if that is the rail
	paypal *paypaltest.Server // the PayPal double behind inner, if that is the rail

	mu       sync.Mutex
	receipts map[string]service.RailReceipt // accepted submissions by idempotency key
	calls    map[string]int                 // Submit calls that reached the rail, by key
	methods  map[string]string              // the method each key was last submitted to
	notes    map[string][2]string           // the memo and app name each key was last submitted with
	next     []railStep
	die      context.CancelFunc
	gates    []chan struct{} // of the held calls to come, in turn
	entered  chan struct{}   // a held call has reached the rail
	// outcomes answer the next Outcome calls, in turn (settled when none is left); while
	// outcomeGate is set, each Outcome call tells entered and waits for it to be closed.
	outcomes    []service.RailOutcome
	outcomeGate chan struct{}
}

const settleDelay = 5 * time.Second

func newCountingRail() *countingRail {
	return &countingRail{receipts: map[string]service.RailReceipt{}, calls: map[string]int{},
		methods: map[string]string{}, notes: map[string][2]string{}, entered: make(chan struct{})}
}

// rails is the rail on every platform.
func (r *countingRail) rails() map[payouts.Platform]service.Rail {
	m := map[payouts.Platform]service.Rail{}
	for _, p := range payouts.Platforms {
		m[p] = r
	}
	return m
}

// holdUntil queues held calls, one per gate: each answers when its gate is closed.
func (r *countingRail) holdUntil(gates ...chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range gates {
		r.next = append(r.next, hold)
		r.gates = append(r.gates, g)
	}
}

// then queues the steps of the next Submit calls.
func (r *countingRail) then(steps ...railStep) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next = append(r.next, steps...)
}

func (r *countingRail) Submit(ctx context.Context, key string, p service.RailPayout) (service.RailReceipt, error) {
	r.mu.Lock()
	step := accept
	if len(r.next) > 0 {
		step, r.next = r.next[0], r.next[1:]
	}
	if key != p.TransferID {
		r.mu.Unlock()
		return service.RailReceipt{}, errors.New("countingRail: the idempotency key is not the transfer id")
	}
	switch step {
	case unreachable:
		r.mu.Unlock()
		return service.RailReceipt{}, errors.New("countingRail: unreachable")
	case crashBefore:
		r.mu.Unlock()
		r.die()
		return service.RailReceipt{}, ctx.Err()
	}
	r.calls[key]++
	r.methods[key] = p.Method.ID
	r.notes[key] = [2]string{p.Memo, p.AppName}
	var gate chan struct{}
	if step == hold {
		gate, r.gates = r.gates[0], r.gates[1:]
	}
	receipt, ok := r.receipts[key]
	if r.inner != nil {
		r.mu.Unlock()
		var err error
		if receipt, err = r.inner.Submit(ctx, key, p); err != nil {
			return receipt, err
		}
		r.mu.Lock()
		if first, ok := r.receipts[key]; ok && first.ExternalID != receipt.ExternalID {
			receipt.ExternalID += " (the first was " + first.ExternalID + ")" // the provider paid twice
		}
		r.receipts[key] = receipt
	} else if !ok {
		receipt = service.RailReceipt{ExternalID: "cr_" + key, SettleAt: r.clock.Now().Add(settleDelay)}
		r.receipts[key] = receipt
	}
	r.mu.Unlock()
	switch step {
	case crashAfter:
		r.die()
	case hold:
		r.entered <- struct{}{}
		<-gate
	}
	return receipt, nil
}

func (r *countingRail) Outcome(ctx context.Context, p service.RailPayout, externalID string) (service.RailOutcome, error) {
	if r.inner != nil {
		return r.inner.Outcome(ctx, p, externalID)
	}
	r.mu.Lock()
	out, gate := service.RailOutcome{Settled: true}, r.outcomeGate
	if len(r.outcomes) > 0 {
		out, r.outcomes = r.outcomes[0], r.outcomes[1:]
	}
	r.mu.Unlock()
	if gate != nil {
		r.entered <- struct{}{}
		<-gate
	}
	return out, nil
}

// thenOutcomes queues the answers of the next Outcome calls.
func (r *countingRail) thenOutcomes(outs ...service.RailOutcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes = append(r.outcomes, outs...)
}

// holdOutcomes makes every Outcome call wait for gate to be closed.
func (r *countingRail) holdOutcomes(gate chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomeGate = gate
}

// receipt is the receipt the rail gave for key.
func (r *countingRail) receipt(key string) service.RailReceipt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.receipts[key]
}

// submissions returns the accepted submissions and the calls that reached the rail for key.
func (r *countingRail) submissions(key string) (accepted, calls int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.receipts), r.calls[key]
}
