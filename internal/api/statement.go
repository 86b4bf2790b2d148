package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// statement answers the app's wallet, or a user's, over a period (our extension).
func (h *handler) statement(c *fiber.Ctx) error {
	r, err := payouts.ParseStatementRequest(func(k string) string { return c.Query(k) })
	if err != nil {
		return err
	}
	st, err := h.svc.Statement(c.UserContext(), appID(c), r)
	if err != nil {
		return err
	}
	return c.JSON(st)
}
