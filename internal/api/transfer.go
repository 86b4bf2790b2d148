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
	f, err := transferFilter(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListTransfers(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

// summarizeTransfers counts and sums the transfers the list's filters match (our extension).
func (h *handler) summarizeTransfers(c *fiber.Ctx) error {
	f, err := transferFilter(c)
	if err != nil {
		return err
	}
	sum, err := h.svc.SummarizeTransfers(c.UserContext(), appID(c), f)
	if err != nil {
		return err
	}
	return c.JSON(sum)
}

// transferFilter reads the filters of the transfer list and its summary.
func transferFilter(c *fiber.Ctx) (payouts.TransferFilter, error) {
	r, err := payouts.ParseRange(func(k string) string { return c.Query(k) })
	f := payouts.TransferFilter{
		UserID: c.Query("user_id"),
		Type:   payouts.TransferType(c.Query("type")),
		Status: payouts.TransferStatus(c.Query("status")),
		Range:  r,
	}
	return f, err
}

func (h *handler) getTransfer(c *fiber.Ctx) error {
	t, err := h.svc.GetTransfer(c.UserContext(), appID(c), c.Params("transfer_id"))
	if err != nil {
		return err
	}
	return c.JSON(t)
}
