package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) addPayoutMethod(c *fiber.Ctx) error {
	var req payouts.AddPayoutMethodRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	m, err := h.svc.AddPayoutMethod(c.UserContext(), appID(c), c.Params("user_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(m)
}

// listPayoutMethods answers a bare array, not a list object, as the public API does.
func (h *handler) listPayoutMethods(c *fiber.Ctx) error {
	methods, err := h.svc.ListPayoutMethods(c.UserContext(), appID(c), c.Params("user_id"))
	if err != nil {
		return err
	}
	if methods == nil {
		methods = []payouts.PayoutMethod{}
	}
	return c.JSON(methods)
}
