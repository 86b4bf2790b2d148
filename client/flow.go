package client

import (
	"context"
	"iter"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// CreateFlow makes a hosted multi-step flow for a payee; embed its Link in an iframe
// (POST /v2/flows).
func (c *Client) CreateFlow(ctx context.Context, req payouts.CreateFlowRequest) (*payouts.Flow, error) {
	return call[payouts.Flow](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "flows"}, body: req})
}

// GetFlow returns one flow with the steps completed so far (GET /v2/flows/{id}).
func (c *Client) GetFlow(ctx context.Context, id string) (*payouts.Flow, error) {
	return call[payouts.Flow](ctx, c, get("v2", "flows", id))
}

// ListFlows returns one page of flows, newest first (GET /v2/flows); filter.UserID narrows them
// to one user's (our extension).
func (c *Client) ListFlows(ctx context.Context, page payouts.Page, filter payouts.FlowFilter) (*payouts.List[payouts.Flow], error) {
	q := pageQuery(page)
	setQuery(q, "user_id", filter.UserID)
	return listPage[payouts.Flow](ctx, c, q, "v2", "flows")
}

// AllFlows walks every flow matching filter, newest first.
func (c *Client) AllFlows(ctx context.Context, filter payouts.FlowFilter) iter.Seq2[payouts.Flow, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.Flow], error) {
		return c.ListFlows(ctx, p, filter)
	}, func(f payouts.Flow) string { return f.ID })
}
