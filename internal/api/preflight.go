package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// preflightPayout answers what POST /v2/payouts would make of the same body, writing nothing.
func (h *handler) preflightPayout(c *fiber.Ctx) error {
	var req payouts.CreatePayoutRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	pf, err := h.svc.PreflightPayout(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.JSON(pf)
}

// preflightBatch answers the preflight of many payouts and transfers, each as if the ones before
// it that pass had been made.
func (h *handler) preflightBatch(c *fiber.Ctx) error {
	var req payouts.PreflightBatchRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	out, err := h.svc.PreflightBatch(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
