package client

import (
	"context"
	"net/url"

	"github.com/disburse/disburse/payouts"
)

// Reconcile matches the app's payouts on a platform's rail for a day (UTC) against the provider's
// items and returns every difference (GET /v2/reconciliation, an extension).
func (c *Client) Reconcile(ctx context.Context, req payouts.ReconcileRequest) (*payouts.Reconciliation, error) {
	r := get("v2", "reconciliation")
	r.query = url.Values{"platform": {string(req.Platform)}, "day": {req.Day}}
	return call[payouts.Reconciliation](ctx, c, r)
}
