package api

import (
	"github.com/gofiber/fiber/v2"

	"disburse/payouts"
)

func (h *handler) createPayout(c *fiber.Ctx) error {
	var req payouts.CreatePayoutRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, err := h.svc.CreatePayout(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(t)
}

// reviewRequest is the body of POST /v2/transfers/{id}/review, our extension for operators who
// release or reject a flagged transfer.
type reviewRequest struct {
	Action string `json:"action"` // "release" or "reject"
	Reason string `json:"reason,omitempty"`
}

func (h *handler) reviewTransfer(c *fiber.Ctx) error {
	var req reviewRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Action != "release" && req.Action != "reject" {
		return payouts.FieldError("action", "must be release or reject")
	}
	if len(req.Reason) > 500 {
		return payouts.FieldError("reason", "must be at most 500 characters")
	}
	t, err := h.svc.ReviewTransfer(c.UserContext(), appID(c), c.Params("transfer_id"), req.Action == "release", req.Reason)
	if err != nil {
		return err
	}
	return c.JSON(t)
}
