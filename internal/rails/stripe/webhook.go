package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	stripeapi "github.com/stripe/stripe-go/v83"
	"github.com/stripe/stripe-go/v83/webhook"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// outcomeEvents are the events that end an OutboundPayment or bring its money back; the others
// (created, tracking details) say nothing the poll needs.
var outcomeEvents = map[stripeapi.EventType]bool{
	stripeapi.EventTypeTreasuryOutboundPaymentPosted:   true,
	stripeapi.EventTypeTreasuryOutboundPaymentFailed:   true,
	stripeapi.EventTypeTreasuryOutboundPaymentCanceled: true,
	stripeapi.EventTypeTreasuryOutboundPaymentReturned: true,
}

// Notification verifies a Stripe webhook with stripe-go's own check (webhook.ConstructEvent:
// the Stripe-Signature HMAC under the endpoint's signing secret, and a timestamp within five
// minutes, so an event replayed later is refused) and reports the outcome of the payout its
// OutboundPayment names (service.RailWebhook). A payment without our metadata, and any other
// event, report nothing. An event whose API version is not stripe-go's is an error, not a
// refusal: Stripe sends it again once the endpoint's version is fixed.
func (r *Rail) Notification(_ context.Context, header http.Header, body []byte, _ service.AdmitCall) ([]service.RailNotice, error) {
	event, err := webhook.ConstructEvent(body, header.Get("Stripe-Signature"), r.cfg.WebhookSecret)
	switch {
	case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader),
		errors.Is(err, webhook.ErrNoValidSignature), errors.Is(err, webhook.ErrTooOld):
		return nil, &service.RailUnverified{Reason: err.Error()}
	case err != nil:
		return nil, fmt.Errorf("stripe: read webhook event: %w", err)
	}
	if !outcomeEvents[event.Type] || event.Data == nil {
		return nil, nil
	}
	var op stripeapi.TreasuryOutboundPayment
	if err := json.Unmarshal(event.Data.Raw, &op); err != nil {
		return nil, fmt.Errorf("stripe: read the outbound payment of event %s: %w", event.ID, err)
	}
	id := op.Metadata[MetaTransfer]
	if id == "" {
		return nil, nil
	}
	return []service.RailNotice{{Platform: payouts.PlatformACH,
		Report: service.RailReport{TransferID: id, ExternalID: op.ID, Outcome: r.outcome(&op)}}}, nil
}
