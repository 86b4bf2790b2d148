package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createOrganizationTransfer(c *fiber.Ctx) error {
	var req payouts.CreateOrganizationTransferRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.CreateOrganizationTransfer(c.UserContext(), organizationID(c), req)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

func (h *handler) listOrganizationTransfers(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListOrganizationTransfers(c.UserContext(), organizationID(c), p)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getOrganizationTransfer(c *fiber.Ctx) error {
	t, err := h.svc.GetOrganizationTransfer(c.UserContext(), organizationID(c), c.Params("transfer_id"))
	if err != nil {
		return err
	}
	return c.JSON(t)
}
