package client

import (
	"context"
	"net/url"

	"github.com/disburse/disburse/payouts"
)

// Statement returns the app's wallet, or the user's that r names, over r's period: opening
// balance, every ledger line posted in it with the running balance, closing balance
// (GET /v2/statement, our extension "statements").
func (c *Client) Statement(ctx context.Context, r payouts.StatementRequest) (*payouts.Statement, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	q := url.Values{}
	r.Query(q.Set)
	req := get("v2", "statement")
	req.query = q
	return call[payouts.Statement](ctx, c, req)
}
