package client

import (
	"context"
	"net/http"

	"disburse/payouts"
)

// GetApp returns an app with its wallet (GET /v2/apps/{id}).
func (c *Client) GetApp(ctx context.Context, appID string) (*payouts.App, error) {
	return call[payouts.App](ctx, c, get("v2", "apps", appID))
}

// Deposit funds the app's wallet from its bank and returns the refill transfer
// (POST /v2/apps/{id}/deposit). Without an idempotency key the client makes one, so the call is
// retried safely.
func (c *Client) Deposit(ctx context.Context, appID string, req payouts.DepositRequest) (*payouts.Transfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "apps", appID, "deposit"}, body: req, retry: true})
}
