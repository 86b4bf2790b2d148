package payouts

import (
	"encoding/json"
	"slices"
	"time"
)

// EventType names what happened: the object's noun, a dot, and the change.
type EventType string

const (
	EventTransferCreated   EventType = "transfer.created"
	EventTransferCompleted EventType = "transfer.completed"
	EventTransferFailed    EventType = "transfer.failed"
	EventTransferFlagged   EventType = "transfer.flagged"

	EventPayoutCreated   EventType = "payout.created"
	EventPayoutCompleted EventType = "payout.completed"
	EventPayoutFailed    EventType = "payout.failed"
	EventPayoutFlagged   EventType = "payout.flagged"

	EventPayoutLinkCreated        EventType = "payout_link.created"
	EventPayoutLinkDelivered      EventType = "payout_link.delivered"
	EventPayoutLinkDeliveryFailed EventType = "payout_link.delivery_failed"
	EventPayoutLinkClaimed        EventType = "payout_link.claimed"
	EventPayoutLinkCanceled       EventType = "payout_link.canceled"

	EventFlowCompleted EventType = "flow.completed"

	EventTransferBatchCompleted EventType = "transfer_batch.completed"

	EventPayoutRequestCreated  EventType = "payout_request.created"
	EventPayoutRequestApproved EventType = "payout_request.approved"
	EventPayoutRequestRejected EventType = "payout_request.rejected"

	EventUserCreated             EventType = "user.created"
	EventUserVerified            EventType = "user.verified"
	EventUserComplianceUpdated   EventType = "user.compliance_updated"
	EventWebhookEndpointDisabled EventType = "webhook_endpoint.disabled"
	EventWebhookTest             EventType = "webhook.test"
)

// The events the public API's webhooks name, written beside ours (each with our envelope, its
// data the object as the API answers it): payouts are transfers there, and a change of status is
// also an update.
const (
	EventPayoutLinkSent          EventType = "payout_link.sent"    // the payee holds the link: delivered
	EventPayoutLinkUpdated       EventType = "payout_link.updated" // any change of its status
	EventPayoutLinkPaidOut       EventType = "payout_link.paid_out"
	EventPayoutRequestUpdated    EventType = "payout_request.updated"
	EventFlowUpdated             EventType = "flow.updated" // the payee completed a step
	EventUserPayoutMethodUpdated EventType = "user.updated.payout_method"
	// EventTransferUpdated is every status a transfer (a payout too) takes after it is made.
	EventTransferUpdated EventType = "transfer.updated"
	// EventAppUpdated is an app's own details changing: its ACH account, its business compliance,
	// the organization it joins.
	EventAppUpdated EventType = "app.updated"
	// EventUserBackgroundCheckUpdated is the user's background check done in a flow's step.
	EventUserBackgroundCheckUpdated EventType = "user.updated.background_check"
	// EventUserIDVerified is the user's identity verified in a flow's step ("ide" is the public
	// API's spelling).
	EventUserIDVerified EventType = "user.updated.ide_verified"
)

// EventTypes are every event the service writes, in the order a form lists them.
var EventTypes = []EventType{
	EventTransferCreated, EventTransferCompleted, EventTransferFailed, EventTransferFlagged,
	EventPayoutCreated, EventPayoutCompleted, EventPayoutFailed, EventPayoutFlagged,
	EventPayoutLinkCreated, EventPayoutLinkDelivered, EventPayoutLinkDeliveryFailed, EventPayoutLinkClaimed,
	EventPayoutLinkCanceled, EventFlowCompleted, EventTransferBatchCompleted, EventPayoutRequestCreated,
	EventPayoutRequestApproved, EventPayoutRequestRejected, EventUserCreated, EventUserVerified, EventUserComplianceUpdated,
	EventWebhookEndpointDisabled, EventWebhookTest,
	EventPayoutLinkSent, EventPayoutLinkUpdated, EventPayoutLinkPaidOut, EventPayoutRequestUpdated, EventFlowUpdated,
	EventUserPayoutMethodUpdated, EventTransferUpdated, EventAppUpdated, EventUserBackgroundCheckUpdated, EventUserIDVerified,
}

// Valid reports whether t is an event type the service writes.
func (t EventType) Valid() bool {
	for _, v := range EventTypes {
		if v == t {
			return true
		}
	}
	return false
}

// Event is a change to an object, with the object as the API returned it at that moment. Its id
// is the webhook-id of every delivery, so a receiver drops repeats by it.
type Event struct {
	ID       string          `json:"id"`
	Type     EventType       `json:"type"`
	Created  Time            `json:"created"`
	AppID    string          `json:"app_id"`
	ObjectID string          `json:"object_id"`
	Data     json.RawMessage `json:"data"`
}

// EventFilter narrows GET /v2/events. The creation bounds are ours (ExtEventFilters): an event
// has no amount, so of a Range it takes only the creation bounds.
type EventFilter struct {
	Type     EventType
	ObjectID string
	// CreatedFrom and CreatedTo bound the creation time to [CreatedFrom, CreatedTo); zero is no bound.
	CreatedFrom, CreatedTo time.Time
}

// Range is the filter's creation bounds as a Range, so that they are read, checked and written
// as every list's are.
func (f EventFilter) Range() Range { return Range{CreatedFrom: f.CreatedFrom, CreatedTo: f.CreatedTo} }

// WebhookEndpoint is a URL the service posts events to, signed with its secret.
type WebhookEndpoint struct {
	ID          string      `json:"id"`
	URL         string      `json:"url"`
	EventTypes  []EventType `json:"event_types"` // empty means every type
	Enabled     bool        `json:"enabled"`
	Description string      `json:"description"`
	Created     Time        `json:"created"`
	// DisabledReason says why the service turned the endpoint off, if it did.
	DisabledReason string `json:"disabled_reason,omitempty"`
	// Secret is the signing secret (whsec_ + base64), present only in the answers that create
	// or rotate it.
	Secret string `json:"secret,omitempty"`
}

// CreateWebhookEndpointRequest is the body of POST /v2/webhook-endpoints.
type CreateWebhookEndpointRequest struct {
	URL         string      `json:"url"`
	EventTypes  []EventType `json:"event_types,omitempty"`
	Description string      `json:"description,omitempty"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
}

// UpdateWebhookEndpointRequest is the body of PATCH /v2/webhook-endpoints/{id}; absent fields
// stay as they are.
type UpdateWebhookEndpointRequest struct {
	URL         *string      `json:"url,omitempty"`
	EventTypes  *[]EventType `json:"event_types,omitempty"`
	Description *string      `json:"description,omitempty"`
	Enabled     *bool        `json:"enabled,omitempty"`
}

// RotateWebhookSecretRequest is the body of POST /v2/webhook-endpoints/{id}/rotate-secret.
type RotateWebhookSecretRequest struct {
	// OverlapSeconds is how long the old secret still signs beside the new one (default 86400,
	// at most 604800); 0 drops it at once.
	OverlapSeconds *int64 `json:"overlap_seconds,omitempty"`
}

// ResendWebhooksRequest is the body of POST /v2/webhook-endpoints/{id}/resend: one event, or
// every event whose delivery failed since a time.
type ResendWebhooksRequest struct {
	EventID string `json:"event_id,omitempty"`
	Since   *Time  `json:"since,omitempty"`
}

// ResendWebhooksResult says how many deliveries a resend queued.
type ResendWebhooksResult struct {
	Queued int `json:"queued"`
}

// DeliveryStatus is where one event's delivery to one endpoint stands.
type DeliveryStatus string

const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliverySucceeded DeliveryStatus = "succeeded"
	DeliveryFailed    DeliveryStatus = "failed"
)

// WebhookAttempt is one try of a delivery.
type WebhookAttempt struct {
	ID         int64          `json:"id"`
	EventID    string         `json:"event_id"`
	EventType  EventType      `json:"event_type"`
	EndpointID string         `json:"endpoint_id"`
	StatusCode int            `json:"status_code"` // 0 when no answer came
	LatencyMS  int64          `json:"latency_ms"`
	Response   string         `json:"response"` // the first bytes of the answer, or the error
	Delivery   DeliveryStatus `json:"delivery_status"`
	Created    Time           `json:"created"`
}

// Succeeded reports whether the receiver took the event on this try: any 2xx.
func (a WebhookAttempt) Succeeded() bool { return a.StatusCode >= 200 && a.StatusCode < 300 }

// HealthWindow is how many of an endpoint's newest attempts its health is read from: one page.
const HealthWindow = MaxLimit

// EveryDeliveryFailed reports whether an endpoint's newest attempts (HealthWindow of them) say
// it is failing: there are some, and none succeeded.
func EveryDeliveryFailed(attempts []WebhookAttempt) bool {
	return len(attempts) > 0 && !slices.ContainsFunc(attempts, WebhookAttempt.Succeeded)
}
