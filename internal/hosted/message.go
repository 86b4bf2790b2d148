package hosted

import (
	"github.com/gofiber/fiber/v2"

	views "github.com/disburse/disburse/views/hosted"
)

// inboxLimit is how many messages the sandbox inbox shows.
const inboxLimit = 200

// inbox is GET /sandbox/inbox: every message the sandbox notifier kept, newest first, of one app
// with ?app=ID.
func (h *Handler) inbox(c *fiber.Ctx) error {
	appID := c.Query("app")
	apps, err := h.svc.Apps(c.UserContext())
	if err != nil {
		return err
	}
	msgs, err := h.svc.Inbox(c.UserContext(), appID, inboxLimit)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, a := range apps {
		names[a.ID] = a.Name
	}
	v := views.Inbox{Apps: apps, AppID: appID, Messages: make([]views.Message, len(msgs))}
	for i, m := range msgs {
		v.Messages[i] = views.Message{AppName: names[m.AppID], Channel: m.Channel, To: m.To, Subject: m.Subject,
			Body: views.Segments(m.Body), Created: m.Created}
	}
	return h.render(c, fiber.StatusOK, "Sandbox inbox", "", views.InboxPage(v))
}
