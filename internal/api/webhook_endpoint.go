package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) createWebhookEndpoint(c *fiber.Ctx) error {
	var req payouts.CreateWebhookEndpointRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	e, err := h.svc.CreateWebhookEndpoint(c.UserContext(), appID(c), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(e)
}

func (h *handler) listWebhookEndpoints(c *fiber.Ctx) error {
	list, err := h.svc.ListWebhookEndpoints(c.UserContext(), appID(c))
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getWebhookEndpoint(c *fiber.Ctx) error {
	e, err := h.svc.GetWebhookEndpoint(c.UserContext(), appID(c), c.Params("endpoint_id"))
	if err != nil {
		return err
	}
	return c.JSON(e)
}

func (h *handler) updateWebhookEndpoint(c *fiber.Ctx) error {
	var req payouts.UpdateWebhookEndpointRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	e, err := h.svc.UpdateWebhookEndpoint(c.UserContext(), appID(c), c.Params("endpoint_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(e)
}

func (h *handler) deleteWebhookEndpoint(c *fiber.Ctx) error {
	if err := h.svc.DeleteWebhookEndpoint(c.UserContext(), appID(c), c.Params("endpoint_id")); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h *handler) rotateWebhookSecret(c *fiber.Ctx) error {
	var req payouts.RotateWebhookSecretRequest
	if err := decodeOptional(c, &req); err != nil {
		return err
	}
	e, err := h.svc.RotateWebhookSecret(c.UserContext(), appID(c), c.Params("endpoint_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(e)
}

func (h *handler) listWebhookAttempts(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	list, err := h.svc.ListWebhookAttempts(c.UserContext(), appID(c), c.Params("endpoint_id"), c.Query("event_id"), p)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

// resendWebhooks queues one event again ({"event_id"}) or every failed one since a time
// ({"since"}), and answers how many.
func (h *handler) resendWebhooks(c *fiber.Ctx) error {
	var req payouts.ResendWebhooksRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	n, err := h.svc.ResendWebhooks(c.UserContext(), appID(c), c.Params("endpoint_id"), req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(payouts.ResendWebhooksResult{Queued: n})
}

func (h *handler) testWebhookEndpoint(c *fiber.Ctx) error {
	e, err := h.svc.SendTestWebhook(c.UserContext(), appID(c), c.Params("endpoint_id"))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(e)
}
