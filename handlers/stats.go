package handlers

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// chartDays is the window of the overview's volume chart.
const chartDays = 30

// overview is the dashboard's home for those who may read the app: its wallet, today's payouts,
// the transfers that need someone, what waits for approval, and the last 30 days of volume.
func (h *Handlers) overview(c *fiber.Ctx) error {
	ctx := c.UserContext()
	queue, err := h.approvalQueue(ctx)
	if err != nil {
		return err
	}
	p := pages.OverviewProps{CanReadTransfers: h.can(c, web.PermTransfersRead), Approvals: queue}
	if h.appID != "" {
		app, err := h.payouts.GetApp(ctx, h.appID)
		if err != nil {
			return err
		}
		p.App = app
		offered, err := h.offers(ctx, payouts.ExtStats)
		if err != nil {
			return err
		}
		if !offered {
			p.Notes = []string{notOffered("The overview's figures (the wallet, today's payouts, what needs attention, the volume chart)") +
				" The app's wallet is on the App wallet page."}
		} else if p.Stats, err = h.payouts.GetAppStats(ctx, h.appID, chartDays); err != nil {
			return err
		}
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Overview", Content: pages.Overview(p)})
}
