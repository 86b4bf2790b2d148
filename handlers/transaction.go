package handlers

import (
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

const transactionsPerPage = 50

// transactionFilterOf reads the filter of the transactions list and of its export.
func transactionFilterOf(c *fiber.Ctx) (payouts.TransactionFilter, url.Values, string) {
	user, problem := userFilterOf(c)
	query := url.Values{"user": {user}}
	if problem != "" {
		user = ""
	}
	return payouts.TransactionFilter{UserID: user}, query, problem
}

// transactions lists the ledger lines, newest first, narrowed to one user's.
func (h *Handlers) transactions(c *fiber.Ctx) error {
	filter, query, problem := transactionFilterOf(c)
	page := pageOf(c, transactionsPerPage)
	p := pages.TransactionsProps{UserID: query.Get("user"), Problem: problem,
		Filtered: query.Get("user") != "" || page.StartingAfter != "" || page.EndingBefore != ""}
	status := fiber.StatusOK
	if problem != "" {
		status = fiber.StatusUnprocessableEntity
	} else {
		list, err := h.payouts.ListTransactions(c.UserContext(), page, filter)
		if err != nil {
			return err
		}
		p.Transactions = list.Data
		if n := len(list.Data); n > 0 {
			p.Pages = pageLinks("/transactions", query, page, strconv.FormatInt(list.Data[0].ID, 10),
				strconv.FormatInt(list.Data[n-1].ID, 10), list.HasMore, "#transactions-table")
		}
		if h.can(c, web.PermExport) {
			p.ExportURL = queryURL("/transactions/export", query)
		}
	}
	return h.web.Render(c, status, web.Page{Title: "Transactions", Content: pages.Transactions(p), Fragment: pages.TransactionsList(p)})
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
