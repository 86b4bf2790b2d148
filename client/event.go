package client

import (
	"context"
	"iter"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// GetEvent returns one event (GET /v2/events/{id}).
func (c *Client) GetEvent(ctx context.Context, id string) (*payouts.Event, error) {
	return call[payouts.Event](ctx, c, get("v2", "events", id))
}

// ListEvents returns one page of events, newest first (GET /v2/events); the creation range is
// our extension (payouts.ExtEventFilters).
func (c *Client) ListEvents(ctx context.Context, page payouts.Page, filter payouts.EventFilter) (*payouts.List[payouts.Event], error) {
	q := pageQuery(page)
	setQuery(q, "type", string(filter.Type))
	setQuery(q, "object_id", filter.ObjectID)
	filter.Range().Query(q.Set)
	return listPage[payouts.Event](ctx, c, q, "v2", "events")
}

// AllEvents walks every event matching filter, newest first.
func (c *Client) AllEvents(ctx context.Context, filter payouts.EventFilter) iter.Seq2[payouts.Event, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.Event], error) {
		return c.ListEvents(ctx, p, filter)
	}, func(e payouts.Event) string { return e.ID })
}

// CreateWebhookEndpoint registers a URL for the app's events (POST /v2/webhook-endpoints). The
// answer's Secret verifies the deliveries (VerifyWebhook) and is never shown again.
func (c *Client) CreateWebhookEndpoint(ctx context.Context, req payouts.CreateWebhookEndpointRequest) (*payouts.WebhookEndpoint, error) {
	return call[payouts.WebhookEndpoint](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "webhook-endpoints"}, body: req})
}

// GetWebhookEndpoint returns one endpoint, without its secret (GET /v2/webhook-endpoints/{id}).
func (c *Client) GetWebhookEndpoint(ctx context.Context, id string) (*payouts.WebhookEndpoint, error) {
	return call[payouts.WebhookEndpoint](ctx, c, get("v2", "webhook-endpoints", id))
}

// ListWebhookEndpoints returns every endpoint of the app (GET /v2/webhook-endpoints).
func (c *Client) ListWebhookEndpoints(ctx context.Context) (*payouts.List[payouts.WebhookEndpoint], error) {
	return call[payouts.List[payouts.WebhookEndpoint]](ctx, c, get("v2", "webhook-endpoints"))
}

// UpdateWebhookEndpoint changes the fields req sets (PATCH /v2/webhook-endpoints/{id}).
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, id string, req payouts.UpdateWebhookEndpointRequest) (*payouts.WebhookEndpoint, error) {
	return call[payouts.WebhookEndpoint](ctx, c, request{method: http.MethodPatch, segments: []string{"v2", "webhook-endpoints", id}, body: req})
}

// DeleteWebhookEndpoint removes an endpoint (DELETE /v2/webhook-endpoints/{id}).
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, id string) error {
	return c.do(ctx, request{method: http.MethodDelete, segments: []string{"v2", "webhook-endpoints", id}}, nil)
}

// RotateWebhookSecret gives an endpoint a new secret, returned once; the old one keeps signing
// for the overlap (POST /v2/webhook-endpoints/{id}/rotate-secret).
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, req payouts.RotateWebhookSecretRequest) (*payouts.WebhookEndpoint, error) {
	return call[payouts.WebhookEndpoint](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "webhook-endpoints", id, "rotate-secret"}, body: req})
}

// ListWebhookAttempts returns one page of an endpoint's delivery attempts, newest first,
// optionally of one event (GET /v2/webhook-endpoints/{id}/attempts).
func (c *Client) ListWebhookAttempts(ctx context.Context, endpointID, eventID string, page payouts.Page) (*payouts.List[payouts.WebhookAttempt], error) {
	q := pageQuery(page)
	setQuery(q, "event_id", eventID)
	return listPage[payouts.WebhookAttempt](ctx, c, q, "v2", "webhook-endpoints", endpointID, "attempts")
}

// ResendWebhooks queues one event, or every failed one since a time, for the endpoint again
// (POST /v2/webhook-endpoints/{id}/resend) and returns how many.
func (c *Client) ResendWebhooks(ctx context.Context, endpointID string, req payouts.ResendWebhooksRequest) (int, error) {
	r, err := call[payouts.ResendWebhooksResult](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "webhook-endpoints", endpointID, "resend"}, body: req})
	if err != nil {
		return 0, err
	}
	return r.Queued, nil
}

// SendTestWebhook queues a webhook.test event for the endpoint alone
// (POST /v2/webhook-endpoints/{id}/test).
func (c *Client) SendTestWebhook(ctx context.Context, endpointID string) (*payouts.Event, error) {
	return call[payouts.Event](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "webhook-endpoints", endpointID, "test"}})
}
