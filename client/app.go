package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// GetApp returns an app with its wallet (GET /v2/apps/{id}).
func (c *Client) GetApp(ctx context.Context, appID string) (*payouts.App, error) {
	return call[payouts.App](ctx, c, get("v2", "apps", appID))
}

// GetAppStats returns an operator's overview of an app: its wallet, the payouts flagged, failed
// and pending, and the daily volumes of the last days days, oldest first (GET
// /v2/apps/{id}/stats, our extension: the public service has no such endpoint). days 0 leaves
// the window to the service (30 days).
func (c *Client) GetAppStats(ctx context.Context, appID string, days int) (*payouts.AppStats, error) {
	r := get("v2", "apps", appID, "stats")
	if days != 0 {
		r.query = url.Values{"days": {strconv.Itoa(days)}}
	}
	return call[payouts.AppStats](ctx, c, r)
}

// Deposit funds the app's wallet from its bank and returns the refill transfer
// (POST /v2/apps/{id}/deposit). Without an idempotency key the client makes one, so the call is
// retried safely.
func (c *Client) Deposit(ctx context.Context, appID string, req payouts.DepositRequest) (*payouts.Transfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "apps", appID, "deposit"}, body: req, retry: true})
}
