package client

import (
	"context"
	"net/url"

	"github.com/disburse/disburse/payouts"
)

// LookUpIDs returns the ids of the app's users, payout links, transfers and flows whose short id
// is text or that begin with it, at least 8 characters (GET /v2/id-lookup, an extension).
func (c *Client) LookUpIDs(ctx context.Context, text string) (*payouts.IDLookup, error) {
	r := get("v2", "id-lookup")
	r.query = url.Values{"id": {text}}
	return call[payouts.IDLookup](ctx, c, r)
}
