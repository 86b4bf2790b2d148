package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// createTransferBatch answers 202: the batch is pending until the worker has made its transfers.
func (h *handler) createTransferBatch(c *fiber.Ctx) error {
	var req payouts.CreateTransferBatchRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	b, err := h.svc.CreateTransferBatch(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(b)
}

func (h *handler) listTransferBatches(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListTransferBatches(c.UserContext(), appID(c), p)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getTransferBatch(c *fiber.Ctx) error {
	b, err := h.svc.GetTransferBatch(c.UserContext(), appID(c), c.Params("batch_id"))
	if err != nil {
		return err
	}
	return c.JSON(b)
}
