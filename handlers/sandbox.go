package handlers

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

const messagesPerPage = 25

// sandboxInbox shows the messages the sandbox kept for this dashboard's app (verification codes,
// payout links), newest first: the app's own staff testing a payee's journey read codes here.
// Outside sandbox mode the service has no inbox, and the page says so.
func (h *Handlers) sandboxInbox(c *fiber.Ctx) error {
	page := pageOf(c, messagesPerPage)
	page.EndingBefore = "" // the inbox pages only forward
	// A service in sandbox mode names its inbox among its extensions; the public API has none.
	offered, err := h.offers(c.UserContext(), payouts.ExtSandboxMessages)
	if err != nil {
		return err
	}
	if !offered {
		return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Sandbox inbox", Content: pages.SandboxInbox(h.web.View(c), pages.SandboxInboxProps{Off: true})})
	}
	list, err := h.payouts.SandboxMessages(c.UserContext(), page)
	if err != nil {
		return err
	}
	p := pages.SandboxInboxProps{Messages: list.Data}
	if n := len(list.Data); n > 0 && list.HasMore {
		p.Older = "/sandbox/inbox?" + url.Values{"starting_after": {list.Data[n-1].ID}}.Encode()
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Sandbox inbox", Content: pages.SandboxInbox(h.web.View(c), p)})
}
