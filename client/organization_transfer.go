package client

import (
	"context"
	"iter"
	"net/http"

	"github.com/disburse/disburse/payouts"
)

// CreateOrganizationTransfer moves money between the organization's wallet and one of its apps'
// (POST /v2/organization-transfers): a negative amount to the app, a positive one from it. Without
// an idempotency key the client makes one, so the call is retried safely.
func (c *Client) CreateOrganizationTransfer(ctx context.Context, req payouts.CreateOrganizationTransferRequest) (*payouts.OrganizationTransfer, error) {
	req.IdempotencyKey = idempotencyKey(req.IdempotencyKey)
	return call[payouts.OrganizationTransfer](ctx, c, request{method: http.MethodPost,
		segments: []string{"v2", "organization-transfers"}, body: req, retry: true})
}

// GetOrganizationTransfer returns one organization transfer (GET /v2/organization-transfers/{id}).
func (c *Client) GetOrganizationTransfer(ctx context.Context, id string) (*payouts.OrganizationTransfer, error) {
	return call[payouts.OrganizationTransfer](ctx, c, get("v2", "organization-transfers", id))
}

// ListOrganizationTransfers returns one page of organization transfers, newest first
// (GET /v2/organization-transfers).
func (c *Client) ListOrganizationTransfers(ctx context.Context, page payouts.Page) (*payouts.List[payouts.OrganizationTransfer], error) {
	return listPage[payouts.OrganizationTransfer](ctx, c, pageQuery(page), "v2", "organization-transfers")
}

// AllOrganizationTransfers walks every organization transfer, newest first.
func (c *Client) AllOrganizationTransfers(ctx context.Context) iter.Seq2[payouts.OrganizationTransfer, error] {
	return all(ctx, c.ListOrganizationTransfers, func(t payouts.OrganizationTransfer) string { return t.ID })
}
