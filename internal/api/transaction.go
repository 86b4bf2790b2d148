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
	f := payouts.TransactionFilter{UserID: c.Query("user_id")}
	list, err := h.svc.ListTransactions(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
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
