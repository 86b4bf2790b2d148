package client

import (
	"context"
	"iter"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// CreateTransferBatch asks for up to payouts.MaxBatchItems transfers at once
// (POST /v2/transfer-batches). The batch answers pending; GetTransferBatch shows each item's
// outcome once it is completed. Without an idempotency key the client makes one, so the call is
// retried safely.
func (c *Client) CreateTransferBatch(ctx context.Context, req payouts.CreateTransferBatchRequest) (*payouts.TransferBatch, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.TransferBatch](ctx, c, request{method: http.MethodPost, segments: []string{"v2", "transfer-batches"}, body: req, retry: true})
}

// GetTransferBatch returns a batch with its items (GET /v2/transfer-batches/{id}).
func (c *Client) GetTransferBatch(ctx context.Context, id string) (*payouts.TransferBatch, error) {
	return call[payouts.TransferBatch](ctx, c, get("v2", "transfer-batches", id))
}

// ListTransferBatches returns one page of batches without their items, newest first
// (GET /v2/transfer-batches).
func (c *Client) ListTransferBatches(ctx context.Context, page payouts.Page) (*payouts.List[payouts.TransferBatch], error) {
	return listPage[payouts.TransferBatch](ctx, c, pageQuery(page), "v2", "transfer-batches")
}

// AllTransferBatches walks every batch, newest first.
func (c *Client) AllTransferBatches(ctx context.Context) iter.Seq2[payouts.TransferBatch, error] {
	return all(ctx, c.ListTransferBatches, func(b payouts.TransferBatch) string { return b.ID })
}
