package api

import "github.com/gofiber/fiber/v2"

// listSandboxMessages is GET /v2/sandbox/messages: the messages the sandbox kept for the app
// (verification codes, payout links), newest first. Routed only in sandbox mode.
func (h *handler) listSandboxMessages(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	list, err := h.svc.SandboxMessages(c.UserContext(), appID(c), p)
	if err != nil {
		return err
	}
	return c.JSON(list)
}
