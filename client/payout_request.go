package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"

	"github.com/disburse/disburse/payouts"
)

// CreatePayoutRequest records a payout for an operator to review (POST /v2/payout-requests).
func (c *Client) CreatePayoutRequest(ctx context.Context, req payouts.CreatePayoutRequestRequest) (*payouts.PayoutRequest, error) {
	return call[payouts.PayoutRequest](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payout-requests"}, body: req})
}

// GetPayoutRequest returns a payout request with its user and payout link, when it has them
// (GET /v2/payout-requests/{id}).
func (c *Client) GetPayoutRequest(ctx context.Context, id string) (*payouts.PayoutRequest, error) {
	return call[payouts.PayoutRequest](ctx, c, get("v2", "payout-requests", id))
}

// ListPayoutRequests returns one page of payout requests, newest first or, with filter.Order
// oldest, oldest first (GET /v2/payout-requests).
func (c *Client) ListPayoutRequests(ctx context.Context, page payouts.Page, filter payouts.PayoutRequestFilter) (*payouts.List[payouts.PayoutRequest], error) {
	q := pageQuery(page)
	setQuery(q, "status", string(filter.Status))
	setQuery(q, "order", filter.Order)
	return listPage[payouts.PayoutRequest](ctx, c, q, "v2", "payout-requests")
}

// CountPayoutRequests counts the payout requests matching filter (GET /v2/payout-requests/count,
// our extension); the filter's order plays no part.
func (c *Client) CountPayoutRequests(ctx context.Context, filter payouts.PayoutRequestFilter) (*payouts.PayoutRequestCount, error) {
	req := get("v2", "payout-requests", "count")
	req.query = url.Values{}
	setQuery(req.query, "status", string(filter.Status))
	return call[payouts.PayoutRequestCount](ctx, c, req)
}

// AllPayoutRequests walks every payout request matching filter, in the filter's order.
func (c *Client) AllPayoutRequests(ctx context.Context, filter payouts.PayoutRequestFilter) iter.Seq2[payouts.PayoutRequest, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.PayoutRequest], error) {
		return c.ListPayoutRequests(ctx, p, filter)
	}, func(r payouts.PayoutRequest) string { return r.ID })
}

// ReviewPayoutRequest approves a created request (paying its user, or sending a payout link) or
// rejects it (POST /v2/payout-requests/{id}/review, our extension: the public service has no
// such endpoint). A request already reviewed is a 422.
func (c *Client) ReviewPayoutRequest(ctx context.Context, id string, req payouts.ReviewPayoutRequestRequest) (*payouts.PayoutRequest, error) {
	return call[payouts.PayoutRequest](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payout-requests", id, "review"}, body: req})
}
