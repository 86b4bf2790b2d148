package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

func (h *handler) listEvents(c *fiber.Ctx) error {
	p, err := page(c)
	if err != nil {
		return err
	}
	r, err := payouts.ParseCreatedRange(func(k string) string { return c.Query(k) })
	if err != nil {
		return err
	}
	f := payouts.EventFilter{Type: payouts.EventType(c.Query("type")), ObjectID: c.Query("object_id"),
		CreatedFrom: r.CreatedFrom, CreatedTo: r.CreatedTo}
	list, err := h.svc.ListEvents(c.UserContext(), appID(c), p, f)
	if err != nil {
		return err
	}
	return c.JSON(list)
}

func (h *handler) getEvent(c *fiber.Ctx) error {
	e, err := h.svc.GetEvent(c.UserContext(), appID(c), c.Params("event_id"))
	if err != nil {
		return err
	}
	return c.JSON(e)
}
