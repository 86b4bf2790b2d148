package client

import (
	"context"
	"iter"
	"net/url"
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
	transactionQuery(q, filter)
	return listPage[payouts.Transaction](ctx, c, q, "v2", "transactions")
}

// SummarizeTransactions counts the ledger lines filter matches and sums those into and out of
// the app's wallet (GET /v2/transactions/summary, our extension).
func (c *Client) SummarizeTransactions(ctx context.Context, filter payouts.TransactionFilter) (*payouts.Summary, error) {
	q := url.Values{}
	transactionQuery(q, filter)
	return summary(ctx, c, q, "transactions")
}

// transactionQuery writes a transaction filter as query parameters.
func transactionQuery(q url.Values, filter payouts.TransactionFilter) {
	setQuery(q, "user_id", filter.UserID)
	setQuery(q, "type", string(filter.Type))
	setQuery(q, "status", filter.Status)
	filter.Range.Query(q.Set)
}

// AllTransactions walks every transaction matching filter, newest first.
func (c *Client) AllTransactions(ctx context.Context, filter payouts.TransactionFilter) iter.Seq2[payouts.Transaction, error] {
	return all(ctx, func(ctx context.Context, p payouts.Page) (*payouts.List[payouts.Transaction], error) {
		return c.ListTransactions(ctx, p, filter)
	}, func(t payouts.Transaction) string { return strconv.FormatInt(t.ID, 10) })
}
