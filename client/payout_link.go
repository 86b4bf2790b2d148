package client

import (
	"context"
	"iter"
	"net/http"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// CreatePayoutLink reserves money of the app for a payee, who claims it on the hosted page at the
// link's URL (POST /v2/payout-links). Without an idempotency key the client makes one, so the
// call is retried safely; a repeat with the same key returns the existing link.
func (c *Client) CreatePayoutLink(ctx context.Context, req payouts.CreatePayoutLinkRequest) (*payouts.PayoutLink, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.PayoutLink](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payout-links"}, body: req, retry: true})
}

// GetPayoutLink returns one payout link (GET /v2/payout-links/{id}).
func (c *Client) GetPayoutLink(ctx context.Context, id string) (*payouts.PayoutLink, error) {
	return call[payouts.PayoutLink](ctx, c, get("v2", "payout-links", id))
}

// ListPayoutLinks returns one page of payout links, newest first (GET /v2/payout-links).
func (c *Client) ListPayoutLinks(ctx context.Context, page payouts.Page, filter payouts.PayoutLinkFilter) (*payouts.List[payouts.PayoutLink], error) {
	q := pageQuery(page)
	setQuery(q, "status", string(filter.Status))
	setQuery(q, "search", filter.Search)
	if filter.Amount != 0 {
		q.Set("amount", strconv.FormatInt(int64(filter.Amount), 10))
	}
	return listPage[payouts.PayoutLink](ctx, c, q, "v2", "payout-links")
}

// AllPayoutLinks walks every payout link matching filter, newest first.
func (c *Client) AllPayoutLinks(ctx context.Context, filter payouts.PayoutLinkFilter) iter.Seq2[payouts.PayoutLink, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.PayoutLink], error) {
		return c.ListPayoutLinks(ctx, p, filter)
	}, func(l payouts.PayoutLink) string { return l.ID })
}

// CancelPayoutLink cancels a link that is not claimed yet and returns the reserved money to the
// app (DELETE /v2/payout-links/{id}); the link comes back with status canceled. A claimed link
// is a 422.
func (c *Client) CancelPayoutLink(ctx context.Context, id string) (*payouts.PayoutLink, error) {
	return call[payouts.PayoutLink](ctx, c, request{method: http.MethodDelete, segments: []string{"v2", "payout-links", id}})
}
