package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createTransfer(c *fiber.Ctx) error {
	var req payouts.CreateTransferRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.CreateTransfer(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

func (h *handler) listTransfers(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	f := payouts.TransferFilter{
		UserID: c.Query("user_id"),
		Type:   payouts.TransferType(c.Query("type")),
		Status: payouts.TransferStatus(c.Query("status")),
	}
	list, err := h.svc.ListTransfers(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getTransfer(c *fiber.Ctx) error {
	t, err := h.svc.GetTransfer(c.UserContext(), appID(c), c.Params("transfer_id"))
	if err != nil {
		return err
	}
	return c.JSON(t)
}
