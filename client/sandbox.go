package client

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// SandboxMessages returns one page of the messages the sandbox kept for the app instead of
// sending them (verification codes, payout links), newest first (GET /v2/sandbox/messages). The
// endpoint exists only when the service runs in sandbox mode; elsewhere it is a 404 not-found.
func (c *Client) SandboxMessages(ctx context.Context, page payouts.Page) (*payouts.List[payouts.SandboxMessage], error) {
	return listPage[payouts.SandboxMessage](ctx, c, pageQuery(page), "v2", "sandbox", "messages")
}
