package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// reconcile answers GET /v2/reconciliation?platform=&day=, our extension: the app's payouts on
// the platform's rail that day matched against the provider's items, with every difference.
func (h *handler) reconcile(c *fiber.Ctx) error {
	req := payouts.ReconcileRequest{Platform: payouts.Platform(c.Query("platform")), Day: c.Query("day")}
	out, err := h.svc.Reconcile(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
