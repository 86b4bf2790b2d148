package client

import (
	"context"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// ListAPIKeys returns the app's API keys, newest first, the client's own marked current (GET
// /v2/apps/{id}/api-keys, extension api-keys).
func (c *Client) ListAPIKeys(ctx context.Context, appID string) (*payouts.APIKeyList, error) {
	return call[payouts.APIKeyList](ctx, c, get("v2", "apps", appID, "api-keys"))
}

// CreateAPIKey makes a key of the app and returns it with its secret, shown only now (POST
// /v2/apps/{id}/api-keys). Not retried: a retry after a lost answer would make a second key.
func (c *Client) CreateAPIKey(ctx context.Context, appID string, req payouts.CreateAPIKeyRequest) (*payouts.APIKey, error) {
	return call[payouts.APIKey](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "apps", appID, "api-keys"}, body: req})
}

// RevokeAPIKey stops a key of the app at once (POST /v2/apps/{id}/api-keys/{key_id}/revoke); it
// is safe to retry.
func (c *Client) RevokeAPIKey(ctx context.Context, appID, keyID string) (*payouts.APIKey, error) {
	return call[payouts.APIKey](ctx, c, request{method: http.MethodPost,
		segments: []string{"v2", "apps", appID, "api-keys", keyID, "revoke"}, retry: true})
}
