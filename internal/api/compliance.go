package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// submitCompliance answers 200 with no body; the user's compliance flags show the result.
func (h *handler) submitCompliance(c *fiber.Ctx) error {
	var req payouts.ComplianceRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := h.svc.SubmitCompliance(c.UserContext(), appID(c), c.Params("user_id"), req); err != nil {
		return err
	}
	return noContent(c, fiber.StatusOK)
}
