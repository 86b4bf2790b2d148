package client

import (
	"context"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// SubmitCompliance files the user's tax form, a W-9 or a W-8BEN, and so sets the user's
// compliance flags (PUT /v2/users/{id}/compliance). The answer has no body.
func (c *Client) SubmitCompliance(ctx context.Context, userID string, req payouts.ComplianceRequest) error {
	return c.do(ctx, request{method: http.MethodPut, segments: []string{"v2", "users", userID, "compliance"}, body: req}, nil)
}
