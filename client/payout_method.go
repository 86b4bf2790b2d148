package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// AddPayoutMethod saves a way to pay the user (PUT /v2/users/{id}/payout-methods). Account
// numbers are sent once and never returned.
func (c *Client) AddPayoutMethod(ctx context.Context, userID string, req payouts.AddPayoutMethodRequest) (*payouts.PayoutMethod, error) {
	return call[payouts.PayoutMethod](ctx, c, request{method: http.MethodPut,
		segments: []string{"v2", "users", userID, "payout-methods"}, body: req})
}

// ListPayoutMethods returns every saved payout method of the user
// (GET /v2/users/{id}/payout-methods). The API answers a bare array; a list object
// ({"data": [...]}) is accepted too.
func (c *Client) ListPayoutMethods(ctx context.Context, userID string) ([]payouts.PayoutMethod, error) {
	var methods payoutMethods
	if err := c.do(ctx, get("v2", "users", userID, "payout-methods"), &methods); err != nil {
		return nil, err
	}
	return methods, nil
}

// payoutMethods decodes a bare array or a list object.
type payoutMethods []payouts.PayoutMethod

func (m *payoutMethods) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' {
		var l payouts.List[payouts.PayoutMethod]
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		*m = l.Data
		return nil
	}
	return json.Unmarshal(b, (*[]payouts.PayoutMethod)(m))
}
