package client

import (
	"context"
	"iter"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// GetTransaction returns one ledger line (GET /v2/transactions/{id}); transaction ids are
// integers.
func (c *Client) GetTransaction(ctx context.Context, id int64) (*payouts.Transaction, error) {
	return call[payouts.Transaction](ctx, c, get("v2", "transactions", strconv.FormatInt(id, 10)))
}

// ListTransactions returns one page of transactions, newest first (GET /v2/transactions). The
// cursors of page are transaction ids written in decimal.
func (c *Client) ListTransactions(ctx context.Context, page payouts.Page, filter payouts.TransactionFilter) (*payouts.List[payouts.Transaction], error) {
	q := pageQuery(page)
	setQuery(q, "user_id", filter.UserID)
	return listPage[payouts.Transaction](ctx, c, q, "v2", "transactions")
}

// AllTransactions walks every transaction matching filter, newest first.
func (c *Client) AllTransactions(ctx context.Context, filter payouts.TransactionFilter) iter.Seq2[payouts.Transaction, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.Transaction], error) {
		return c.ListTransactions(ctx, p, filter)
	}, func(t payouts.Transaction) string { return strconv.FormatInt(t.ID, 10) })
}
