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
	status, err := h.reconcile(c, "/transactions", "#transactions-body", lf, &p.List, func() (int, error) {
		list, err := h.payouts.ListTransactions(c.UserContext(), lf.page, filter)
		if err != nil {
			return 0, err
		}
		sum, err := h.payouts.SummarizeTransactions(c.UserContext(), filter)
		if err != nil {
			return 0, err
		}
		p.Transactions = list.Data
		p.List.Summary.Summary = *sum
		if n := len(list.Data); n > 0 {
			p.List.Pages = pageLinks("/transactions", lf.query(), lf.page, strconv.FormatInt(list.Data[0].ID, 10),
				strconv.FormatInt(list.Data[n-1].ID, 10), list.HasMore, "#transactions-body")
		}
		p.Payees, err = payeesOf(h, c, list.Data, func(t payouts.Transaction) *string { return t.UserID })
		return len(list.Data), err
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
