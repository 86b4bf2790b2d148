package client

import (
	"context"
	"sync"

	"github.com/disburse/disburse/payouts"
)

// extensionCache holds what GET /v2/extensions answered, asked once per Client.
type extensionCache struct {
	mu    sync.Mutex
	known *payouts.Extensions
}

// Extensions reports which extensions the server offers (GET /v2/extensions). The public Dots
// service has no such route: its 404 means none, and the caller then uses only the public API.
// The answer is kept for the Client's life; a failure (the server down, a 5xx) is not kept, so
// the next call asks again.
func (c *Client) Extensions(ctx context.Context) (payouts.Extensions, error) {
	c.ext.mu.Lock()
	defer c.ext.mu.Unlock()
	if c.ext.known != nil {
		return *c.ext.known, nil
	}
	x, err := call[payouts.Extensions](ctx, c, get("v2", "extensions"))
	switch {
	case payouts.ErrorCode(err) == payouts.ENotFound:
		x = &payouts.Extensions{}
	case err != nil:
		return payouts.Extensions{}, err
	}
	c.ext.known = x
	return *x, nil
}
