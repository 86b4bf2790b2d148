package api

import (
	"github.com/gofiber/fiber/v2"

	"disburse/payouts"
)

func (h *handler) getApp(c *fiber.Ctx) error {
	app, err := h.svc.GetApp(c.UserContext(), appID(c), c.Params("app_id"))
	if err != nil {
		return err
	}
	return c.JSON(app)
}

func (h *handler) deposit(c *fiber.Ctx) error {
	var req payouts.DepositRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.Deposit(c.UserContext(), appID(c), c.Params("app_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(t)
}
