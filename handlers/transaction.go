package handlers

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// transactionFilterOf reads the filter of the transactions list and of its export.
func (h *Handlers) transactionFilterOf(c *fiber.Ctx) (payouts.TransactionFilter, listFilter) {
	lf := h.listFilterOf(c)
	return payouts.TransactionFilter{UserID: lf.userID, Range: lf.rng}, lf
}

// transactions lists the ledger lines, newest first, narrowed by the filter form, with the
// count and totals of the whole filtered set.
func (h *Handlers) transactions(c *fiber.Ctx) error {
	filter, lf := h.transactionFilterOf(c)
	var p pages.TransactionsProps
	status, err := h.reconcile(c, "/transactions", "#transactions-body", lf, &p.List, func() (int, bool, error) {
		ctx := c.UserContext()
		source, keep, err := h.transactionSource(ctx, filter)
		if err != nil {
			return 0, false, err
		}
		noun := "transactions"
		if filter.UserID != "" {
			noun = "transactions of this user's transfers"
		}
		rows, summarized, err := reconcileRows(h, c, lf, &p.List, reconciled[payouts.Transaction]{
			path: "/transactions", target: "#transactions-body", noun: noun, by: "by user, date or amount",
			source: source, keep: keep, id: func(t payouts.Transaction) string { return strconv.FormatInt(t.ID, 10) },
			userOf: func(t payouts.Transaction) *string { return t.UserID },
			list: func() (*payouts.List[payouts.Transaction], error) {
				return h.payouts.ListTransactions(ctx, lf.page, filter)
			},
			summarize: func() (*payouts.Summary, error) { return h.payouts.SummarizeTransactions(ctx, filter) },
			typeName:  func(t string) string { return pages.TransactionTypeName(payouts.TransactionType(t)) },
		})
		p.Transactions, p.Payees = rows.rows, rows.payees
		return len(rows.rows), summarized, err
	})
	if err != nil {
		return err
	}
	return h.web.Render(c, status, web.Page{Title: "Transactions", Content: pages.Transactions(p),
		Fragment: pages.TransactionsBody(p)})
}

// transaction shows one ledger line.
func (h *Handlers) transaction(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id < 1 {
		return fiber.NewError(fiber.StatusNotFound, "There is no such transaction.")
	}
	t, err := h.payouts.GetTransaction(c.UserContext(), id)
	if err != nil {
		return err
	}
	people, err := h.peopleOf(c.UserContext(), t.UserID)
	if err != nil {
		return err
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Transaction " + c.Params("id"),
		Content: pages.TransactionDetail(pages.TransactionDetailProps{Transaction: *t, People: people})})
}
