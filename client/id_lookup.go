package client

import (
	"context"
	"net/url"

	"github.com/disburse/disburse/payouts"
)

// LookUpIDs returns the ids of the app's users, payout links, transfers and flows that begin with
// prefix, at least the 8 characters of a short id (GET /v2/id-lookup, an extension).
func (c *Client) LookUpIDs(ctx context.Context, prefix string) (*payouts.IDLookup, error) {
	r := get("v2", "id-lookup")
	r.query = url.Values{"prefix": {prefix}}
	return call[payouts.IDLookup](ctx, c, r)
}
