package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// railWebhook hands a provider's notification, its headers, raw body and client address, to the
// service, which verifies it with the provider and books what it reports.
func (h *handler) railWebhook(c *fiber.Ctx) error {
	header := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { header.Add(string(k), string(v)) })
	body := append([]byte(nil), c.Body()...)
	if err := h.svc.ReceiveRailWebhook(c.UserContext(), c.Params("provider"), h.proxies.ClientIP(c), header, body); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// listRails answers which rail pays out on each platform, and whether anyone is screened.
func (h *handler) listRails(c *fiber.Ctx) error {
	names := h.svc.RailNames()
	loaded, err := h.svc.SanctionsLoaded(c.UserContext())
	if err != nil {
		return err
	}
	out := payouts.Rails{Rails: []payouts.PlatformRail{}, SanctionsListLoaded: loaded}
	for _, p := range payouts.Platforms {
		out.Rails = append(out.Rails, payouts.PlatformRail{Platform: p, Rail: names[p]})
	}
	return c.JSON(out)
}
