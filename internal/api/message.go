package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// messageStatus hands a message provider's delivery report, its headers and raw body, to the
// service, which verifies it with the provider and records what it reports.
func (h *handler) messageStatus(c *fiber.Ctx) error {
	header := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { header.Add(string(k), string(v)) })
	body := append([]byte(nil), c.Body()...)
	if err := h.svc.ReceiveMessageStatus(c.UserContext(), c.Params("provider"), c.Params("message_id"), header, body); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// userMessages lists the messages sent to a user, newest first (?limit=, at most 100).
func (h *handler) userMessages(c *fiber.Ctx) error {
	msgs, err := h.svc.UserMessages(c.UserContext(), appID(c), c.Params("user_id"), c.QueryInt("limit", 100))
	if err != nil {
		return err
	}
	return c.JSON(payouts.List[payouts.Message]{Data: msgs})
}

// resendPayoutLink sends an sms or email payout link to its payee again.
func (h *handler) resendPayoutLink(c *fiber.Ctx) error {
	link, err := h.svc.ResendPayoutLink(c.UserContext(), appID(c), c.Params("link_id"))
	if err != nil {
		return err
	}
	return c.JSON(link)
}

// correctPayoutLinkContact sends an undelivered sms or email payout link to a corrected payee.
func (h *handler) correctPayoutLinkContact(c *fiber.Ctx) error {
	var req payouts.CorrectPayoutLinkContactRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	link, err := h.svc.CorrectPayoutLinkContact(c.UserContext(), appID(c), c.Params("link_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(link)
}
