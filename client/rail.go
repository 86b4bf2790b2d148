package client

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// Rails returns which rail pays out on each platform: "sandbox", or the provider the service
// was configured with for it (GET /v2/rails, our extension "rails").
func (c *Client) Rails(ctx context.Context) (*payouts.Rails, error) {
	return call[payouts.Rails](ctx, c, get("v2", "rails"))
}
