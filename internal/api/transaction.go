package api

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) listTransactions(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	f, err := transactionFilter(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListTransactions(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

// summarizeTransactions counts and sums the ledger lines the list's filters match (our
// extension).
func (h *handler) summarizeTransactions(c *fiber.Ctx) error {
	f, err := transactionFilter(c)
	if err != nil {
		return err
	}
	sum, err := h.svc.SummarizeTransactions(c.UserContext(), appID(c), f)
	if err != nil {
		return err
	}
	return c.JSON(sum)
}

// transactionFilter reads the filters of the transaction list and its summary.
func transactionFilter(c *fiber.Ctx) (payouts.TransactionFilter, error) {
	r, err := payouts.ParseRange(func(k string) string { return c.Query(k) })
	return payouts.TransactionFilter{UserID: c.Query("user_id"), Type: payouts.TransactionType(c.Query("type")),
		Status: c.Query("status"), Range: r}, err
}

// getTransaction takes an integer id; anything else names no transaction.
func (h *handler) getTransaction(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("transaction_id"), 10, 64)
	if err != nil || id <= 0 {
		return payouts.Errorf(payouts.ENotFound, "No such transaction.")
	}
	t, err := h.svc.GetTransaction(c.UserContext(), appID(c), id)
	if err != nil {
		return err
	}
	return c.JSON(t)
}
