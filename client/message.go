package client

import (
	"context"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// UserMessages lists the emails and texts the service sent a user, newest first, at most 100:
// channel, purpose, status and why one failed, never their content (GET
// /v2/users/{id}/messages, our extension "messages").
func (c *Client) UserMessages(ctx context.Context, userID string) ([]payouts.Message, error) {
	l, err := call[payouts.List[payouts.Message]](ctx, c, get("v2", "users", userID, "messages"))
	if err != nil {
		return nil, err
	}
	return l.Data, nil
}

// ResendPayoutLink sends an open sms or email payout link to its payee again (POST
// /v2/payout-links/{id}/resend, our extension "messages").
func (c *Client) ResendPayoutLink(ctx context.Context, id string) (*payouts.PayoutLink, error) {
	return call[payouts.PayoutLink](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payout-links", id, "resend"}})
}

// CorrectPayoutLinkContact sends an undelivered sms or email payout link to the payee req names
// instead of the one it named (POST /v2/payout-links/{id}/contact, our extension "messages").
func (c *Client) CorrectPayoutLinkContact(ctx context.Context, id string, req payouts.CorrectPayoutLinkContactRequest) (*payouts.PayoutLink, error) {
	return call[payouts.PayoutLink](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payout-links", id, "contact"}, body: req})
}
