package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createPayout(c *fiber.Ctx) error {
	var req payouts.CreatePayoutRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.CreatePayout(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(t)
}

func (h *handler) reviewTransfer(c *fiber.Ctx) error {
	var req payouts.ReviewTransferRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.ReviewTransfer(c.UserContext(), appID(c), c.Params("transfer_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

func (h *handler) sendPayout(c *fiber.Ctx) error {
	var req payouts.SendPayoutRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	r, err := h.svc.SendPayout(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(r)
}
