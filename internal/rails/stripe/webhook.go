package stripe

import (
	"context"
	"encoding/json"
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

// Notification verifies a Stripe webhook with stripe-go's own check (webhook.ValidatePayload:
// the Stripe-Signature HMAC under the endpoint's signing secret, and a timestamp within five
// minutes, so an event replayed later is refused) and reports the outcome of the payout its
// OutboundPayment names (service.RailWebhook). A payment without our metadata, and any other
// event, report nothing. A signed event that cannot be read (not an event, fields of the wrong
// type, an API version not stripe-go's) is unreadable: Stripe sent it and will send the same
// again, so it is refused as bad input for the operator to see in Stripe's delivery log, while
// the worker's poll still learns the payout's outcome.
func (r *Rail) Notification(_ context.Context, header http.Header, body []byte, _ service.AdmitCall) ([]service.RailNotice, error) {
	signature := header.Get("Stripe-Signature")
	if err := webhook.ValidatePayload(body, signature, r.cfg.WebhookSecret); err != nil {
		return nil, &service.RailUnverified{Reason: err.Error()}
	}
	event, err := webhook.ConstructEventWithOptions(body, signature, r.cfg.WebhookSecret,
		webhook.ConstructEventOptions{IgnoreTolerance: true}) // the signature and its time were checked just above
	if err != nil {
		return nil, &service.RailUnreadable{Reason: err.Error()}
	}
	if !outcomeEvents[event.Type] || event.Data == nil {
		return nil, nil
	}
	var op stripeapi.TreasuryOutboundPayment
	if err := json.Unmarshal(event.Data.Raw, &op); err != nil {
		return nil, &service.RailUnreadable{Reason: fmt.Sprintf("the outbound payment of event %s: %v", event.ID, err)}
	}
	id := op.Metadata[MetaTransfer]
	if id == "" {
		return nil, nil
	}
	return []service.RailNotice{{Platform: payouts.PlatformACH,
		Report: service.RailReport{TransferID: id, ExternalID: op.ID, Outcome: r.outcome(&op)}}}, nil
}
