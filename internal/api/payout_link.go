package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createPayoutLink(c *fiber.Ctx) error {
	var req payouts.CreatePayoutLinkRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	link, replayed, err := h.svc.CreatePayoutLink(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	status := fiber.StatusCreated
	if replayed {
		status = fiber.StatusOK // the same idempotency key returns the link made before
	}
	return c.Status(status).JSON(link)
}

func (h *handler) listPayoutLinks(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	amount, err := payouts.ParseFilterAmount(c.Query("amount"))
	if err != nil {
		return err
	}
	f := payouts.PayoutLinkFilter{Status: payouts.PayoutLinkStatus(c.Query("status")), Search: c.Query("search"), Amount: amount}
	list, err := h.svc.ListPayoutLinks(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getPayoutLink(c *fiber.Ctx) error {
	link, err := h.svc.GetPayoutLink(c.UserContext(), appID(c), c.Params("link_id"))
	if err != nil {
		return err
	}
	return c.JSON(link)
}

func (h *handler) cancelPayoutLink(c *fiber.Ctx) error {
	link, err := h.svc.CancelPayoutLink(c.UserContext(), appID(c), c.Params("link_id"))
	if err != nil {
		return err
	}
	return c.JSON(link)
}
