package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createFlow(c *fiber.Ctx) error {
	var req payouts.CreateFlowRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	f, err := h.svc.CreateFlow(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.JSON(f)
}

func (h *handler) listFlows(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListFlows(c.UserContext(), appID(c), p, payouts.FlowFilter{UserID: c.Query("user_id")})
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getFlow(c *fiber.Ctx) error {
	f, err := h.svc.GetFlow(c.UserContext(), appID(c), c.Params("flow_id"))
	if err != nil {
		return err
	}
	return c.JSON(f)
}
