package client

import (
	"context"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// CreatePayout sends a user's money out on a rail (POST /v2/payouts) and returns the payout
// transfer; with Fund set the app first funds the user's wallet. Without an idempotency key the
// client makes one, so the call is retried safely.
func (c *Client) CreatePayout(ctx context.Context, req payouts.CreatePayoutRequest) (*payouts.Transfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payouts"}, body: req, retry: true})
}

// SendPayout pays a user with a default payout method at once, or sends anyone else a payout
// link, and returns the link (POST /v2/payouts/send-payout): a payment made at once is a link
// claimed by its user, whose transfer_id is the payout. Without an idempotency key the client
// makes one, so the call is retried safely.
func (c *Client) SendPayout(ctx context.Context, req payouts.SendPayoutRequest) (*payouts.PayoutLink, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.PayoutLink](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payouts", "send-payout"}, body: req, retry: true})
}

// PreflightPayout asks what CreatePayout would make of req, without paying anything (POST
// /v2/payouts/preflight, an extension): OK, or every problem that would refuse it, each with a
// stable code. The request is sent as given: no idempotency key is made for it.
func (c *Client) PreflightPayout(ctx context.Context, req payouts.CreatePayoutRequest) (*payouts.Preflight, error) {
	return call[payouts.Preflight](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payouts", "preflight"}, body: req, retry: true})
}

// PreflightBatch asks the same of up to payouts.MaxPreflightItems payouts and balance transfers,
// each checked as if the ones before it that pass had been made (POST
// /v2/payouts/preflight-batch, an extension).
func (c *Client) PreflightBatch(ctx context.Context, req payouts.PreflightBatchRequest) (*payouts.PreflightBatch, error) {
	return call[payouts.PreflightBatch](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "payouts", "preflight-batch"}, body: req, retry: true})
}

// PreflightPayoutLink asks what CreatePayoutLink would make of req and, for a link to a user,
// what their claim would meet (the 1099 threshold, a payout held for review), without reserving
// anything: one item of PreflightBatch.
func (c *Client) PreflightPayoutLink(ctx context.Context, req payouts.CreatePayoutLinkRequest) (*payouts.Preflight, error) {
	return c.preflightOne(ctx, payouts.PreflightItem{PayoutLink: &req})
}

// PreflightTransfer asks what CreateTransfer would make of req (the app wallet's balance, the
// user's state), without moving anything: one item of PreflightBatch.
func (c *Client) PreflightTransfer(ctx context.Context, req payouts.CreateTransferRequest) (*payouts.Preflight, error) {
	return c.preflightOne(ctx, payouts.PreflightItem{Transfer: &req})
}

// PreflightPayoutRequestApproval asks what approving the payout request id would meet (a payout
// at once, or a payout link and its claim), without approving it: one item of PreflightBatch.
func (c *Client) PreflightPayoutRequestApproval(ctx context.Context, id string) (*payouts.Preflight, error) {
	return c.preflightOne(ctx, payouts.PreflightItem{PayoutRequest: id})
}

func (c *Client) preflightOne(ctx context.Context, it payouts.PreflightItem) (*payouts.Preflight, error) {
	batch, err := c.PreflightBatch(ctx, payouts.PreflightBatchRequest{Items: []payouts.PreflightItem{it}})
	if err != nil {
		return nil, err
	}
	return &batch.Items[0], nil
}
