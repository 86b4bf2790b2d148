package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createPayoutRequest(c *fiber.Ctx) error {
	var req payouts.CreatePayoutRequestRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	r, err := h.svc.CreatePayoutRequest(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(r)
}

func (h *handler) listPayoutRequests(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListPayoutRequests(c.UserContext(), appID(c), p, payoutRequestFilterOf(c))
	if err != nil {
		return err
	}
	return c.JSON(list)
}

// countPayoutRequests is our extension: how many requests the list's filter matches.
func (h *handler) countPayoutRequests(c *fiber.Ctx) error {
	n, err := h.svc.CountPayoutRequests(c.UserContext(), appID(c), payoutRequestFilterOf(c))
	if err != nil {
		return err
	}
	return c.JSON(n)
}

func payoutRequestFilterOf(c *fiber.Ctx) payouts.PayoutRequestFilter {
	return payouts.PayoutRequestFilter{Status: payouts.PayoutRequestStatus(c.Query("status")), Order: c.Query("order")}
}

func (h *handler) getPayoutRequest(c *fiber.Ctx) error {
	r, err := h.svc.GetPayoutRequest(c.UserContext(), appID(c), c.Params("request_id"))
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// reviewPayoutRequest is our extension for operators: approve or reject a created request.
func (h *handler) reviewPayoutRequest(c *fiber.Ctx) error {
	var req payouts.ReviewPayoutRequestRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	r, err := h.svc.ReviewPayoutRequest(c.UserContext(), appID(c), c.Params("request_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(r)
}
