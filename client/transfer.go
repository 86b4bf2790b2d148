package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"

	"github.com/disburse/disburse/payouts"
)

// CreateTransfer moves money between the app and a user (POST /v2/transfers): a negative amount
// from the app to the user, a positive one from the user to the app. Without an idempotency key
// the client makes one, so the call is retried safely.
func (c *Client) CreateTransfer(ctx context.Context, req payouts.CreateTransferRequest) (*payouts.Transfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "transfers"}, body: req, retry: true})
}

// GetTransfer returns one transfer with its transactions (GET /v2/transfers/{id}).
func (c *Client) GetTransfer(ctx context.Context, id string) (*payouts.Transfer, error) {
	return call[payouts.Transfer](ctx, c, get("v2", "transfers", id))
}

// ListTransfers returns one page of transfers, newest first (GET /v2/transfers).
func (c *Client) ListTransfers(ctx context.Context, page payouts.Page, filter payouts.TransferFilter) (*payouts.List[payouts.Transfer], error) {
	q := pageQuery(page)
	transferQuery(q, filter)
	return listPage[payouts.Transfer](ctx, c, q, "v2", "transfers")
}

// SummarizeTransfers counts the transfers filter matches and sums the money they moved in and
// out of the app's wallet (GET /v2/transfers/summary, our extension).
func (c *Client) SummarizeTransfers(ctx context.Context, filter payouts.TransferFilter) (*payouts.Summary, error) {
	q := url.Values{}
	transferQuery(q, filter)
	return summary(ctx, c, q, "transfers")
}

// transferQuery writes a transfer filter as query parameters.
func transferQuery(q url.Values, filter payouts.TransferFilter) {
	setQuery(q, "user_id", filter.UserID)
	setQuery(q, "type", string(filter.Type))
	setQuery(q, "status", string(filter.Status))
	filter.Range.Query(q.Set)
}

// AllTransfers walks every transfer matching filter, newest first.
func (c *Client) AllTransfers(ctx context.Context, filter payouts.TransferFilter) iter.Seq2[payouts.Transfer, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.Transfer], error) {
		return c.ListTransfers(ctx, p, filter)
	}, func(t payouts.Transfer) string { return t.ID })
}

// ReviewTransfer releases a flagged transfer to its rail (Action payouts.ReviewRelease) or
// rejects it (payouts.ReviewReject, with an optional Reason kept as its failure reason) and
// returns it as it now is (POST /v2/transfers/{id}/review, our extension: the public service
// has no such endpoint). A transfer that is not flagged is a 422.
func (c *Client) ReviewTransfer(ctx context.Context, id string, req payouts.ReviewTransferRequest) (*payouts.Transfer, error) {
	return call[payouts.Transfer](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "transfers", id, "review"}, body: req})
}
