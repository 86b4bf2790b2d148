package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// chartDays is the window of the overview's volume chart and of its failure count.
const chartDays = 30

// overview is the dashboard's home for those who may read the app: its wallet, today's payouts,
// the transfers that need someone, what waits for approval, the payouts that failed and the
// last 30 days of volume.
func (h *Handlers) overview(c *fiber.Ctx) error {
	ctx := c.UserContext()
	queue, err := h.approvalQueue(ctx)
	if err != nil {
		return err
	}
	loc := h.zoneOf(c, &components.Form{})
	p := pages.OverviewProps{CanReadTransfers: h.can(c, web.PermTransfersRead), Approvals: queue, Zone: loc.String()}
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
		} else if p.Stats, err = h.payouts.GetAppStats(ctx, h.appID, chartDays, loc.String()); err != nil {
			return err
		} else if p.Attention, err = h.needsAttention(ctx, c, p.Stats); err != nil {
			return err
		}
		if p.Failures, err = h.failures(ctx, c, p.Stats, loc); err != nil {
			return err
		}
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Overview", Content: pages.Overview(h.web.View(c), p)})
}

// needsAttention finds what someone has to fix beyond the stats' counts: payout links whose
// message did not reach the payee (a page of them, fixed on the link by a resend or a corrected
// contact), and from the stats, webhook endpoints whose every recent delivery failed and the
// payees paid over this year's 1099-NEC threshold who have no W-9 on file (the year in the
// operator's zone, which the stats were asked in). It is asked only of our service, which
// offers the stats.
func (h *Handlers) needsAttention(ctx context.Context, c *fiber.Ctx, stats *payouts.AppStats) (pages.AttentionProps, error) {
	a := pages.AttentionProps{CanReadLinks: h.can(c, web.PermLinksRead), CanReadWebhooks: h.can(c, web.PermWebhooksRead),
		CanReadTax: h.can(c, web.PermTaxForms), TaxYear: stats.TaxYear, OweW9: stats.OweW9,
		FailingEndpoints: stats.FailingWebhookEndpoints}
	links, err := h.payouts.ListPayoutLinks(ctx, payouts.Page{Limit: payouts.MaxLimit},
		payouts.PayoutLinkFilter{Status: payouts.LinkDeliveryFailed})
	if err != nil {
		return a, err
	}
	a.UndeliveredLinks, a.MoreUndelivered = len(links.Data), links.HasMore
	a.TaxCounted, err = h.offers(ctx, payouts.ExtTaxForms)
	return a, err
}

// failures counts every payout of the app that failed in the overview's window: its failed payout
// transfers, from the service's stats (nil when the service does not offer them), and what failed
// before a transfer was made, from the dashboard's own records: bulk rows the service refused and
// approved payouts it refused. The window starts chartDays-1 days before today in loc, the
// operator's zone, as the service's does.
func (h *Handlers) failures(ctx context.Context, c *fiber.Ctx, stats *payouts.AppStats, loc *time.Location) (pages.FailuresProps, error) {
	now := h.now().In(loc)
	since := time.Date(now.Year(), now.Month(), now.Day()-(chartDays-1), 0, 0, 0, 0, loc)
	p := pages.FailuresProps{Days: chartDays, TransfersCounted: stats != nil,
		CanReadTransfers: h.can(c, web.PermTransfersRead), CanReadBulk: h.can(c, web.PermMoneyMove)}
	if stats != nil {
		p.Transfers = stats.Failed
	}
	var err error
	if p.BulkRows, err = h.store.CountFailedBulkRows(ctx, h.appID, since); err != nil {
		return p, err
	}
	p.Approvals, err = h.store.CountFailedApprovals(ctx, h.appID, kindPayout, since)
	return p, err
}
