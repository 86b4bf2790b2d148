package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

const depositsPerPage = 20

// app shows the app's wallet and its deposits; htmx swaps only the deposits table.
func (h *Handlers) app(c *fiber.Ctx) error {
	return h.renderApp(c, fiber.StatusOK, components.Form{})
}

func (h *Handlers) renderApp(c *fiber.Ctx, status int, form components.Form) error {
	p := pages.AppProps{CanDeposit: h.can(c, web.PermMoneyMove), CanReadTransfers: h.can(c, web.PermTransfersRead),
		Deposit: pages.TransferFormProps{Form: form, IdempotencyKey: uuid.NewString()}}
	if h.appID != "" {
		ctx := c.UserContext()
		app, err := h.payouts.GetApp(ctx, h.appID)
		if err != nil {
			return err
		}
		page := pageOf(c, depositsPerPage)
		refills := payouts.TransferFilter{Type: payouts.TransferRefill}
		list, note, searched, err := listPageSearched(ctx, h, payouts.ExtTransferFilters, page, refills, payouts.TransferFilter{},
			h.payouts.ListTransfers, h.payouts.AllTransfers, transferMatches(refills), "transfers", "by type")
		if err != nil {
			return err
		}
		wallet, whole, err := h.appWallet(ctx, app)
		if err != nil {
			return err
		}
		app.Wallet, p.WalletWhole = wallet, whole
		p.App, p.Deposits, p.DepositsSearched = app, list.Data, searched
		p.Notes = notesOf(note)
		if !whole {
			p.Notes = append(p.Notes, walletPartial)
		}
		if n := len(list.Data); n > 0 && note == "" {
			p.Pages = pageLinks("/app", nil, page, list.Data[0].ID, list.Data[n-1].ID, list.HasMore, "#deposits")
		}
	}
	if !web.IsHTMX(c) { // the deposits' pages swap their table alone
		rails, err := h.railsOf(c.UserContext())
		if err != nil {
			return err
		}
		p.Rails = rails
	}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "App wallet", Content: pages.App(view, p), Fragment: pages.Deposits(view, p)})
}

// railsOf says which rail pays out on each platform, where the service offers to say (the
// extension rails); on the public API the provider runs its rails, and the section says so.
func (h *Handlers) railsOf(ctx context.Context) (pages.RailsProps, error) {
	offered, err := h.offers(ctx, payouts.ExtRails)
	if err != nil {
		return pages.RailsProps{}, err
	}
	if !offered {
		return pages.RailsProps{Note: "The payouts provider runs the rails: this API does not say which pays out on each platform."}, nil
	}
	rails, err := h.payouts.Rails(ctx)
	if err != nil {
		return pages.RailsProps{}, err
	}
	p := pages.RailsProps{NoSanctionsList: !rails.SanctionsListLoaded}
	for _, r := range rails.Rails {
		row := pages.PlatformRailProps{Platform: r.Platform.Label(), Rail: railLabel(r.Rail), Sandbox: r.Rail == sandboxRail}
		if r.Platform == payouts.PlatformCashApp {
			row.Note = "Cash App has no public payouts API: its payouts stay on the sandbox unless payoutd is configured otherwise."
		}
		p.Rails = append(p.Rails, row)
	}
	return p, nil
}

// sandboxRail is how GET /v2/rails names the sandbox's rail.
const sandboxRail = "sandbox"

// railLabel is a rail's name for people; a provider this dashboard does not know by name is
// shown as the service names it.
func railLabel(rail string) string {
	switch rail {
	case sandboxRail:
		return "Sandbox"
	case "paypal":
		return "PayPal Payouts"
	case "stripe":
		return "Stripe Treasury"
	case "off":
		return "Off: payouts refused"
	}
	return rail
}

// deposit funds the app's wallet from its bank.
func (h *Handlers) deposit(c *fiber.Ctx) error {
	if h.appID == "" {
		return fiber.NewError(fiber.StatusNotFound, "The dashboard does not know which app it serves; set --app-id.")
	}
	form := formOf(c, "amount", "idempotency_key")
	amount, ok := amountOf(&form, "amount")
	if !ok {
		return h.renderApp(c, fiber.StatusUnprocessableEntity, form)
	}
	t, err := h.payouts.Deposit(c.UserContext(), h.appID, payouts.DepositRequest{Amount: int64(amount), IdempotencyKey: idempotencyKeyOf(form)})
	if formFailed(err, &form) {
		return h.renderApp(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	h.audit(c, "app.deposit", "app", h.appID, "deposited "+amount.String()+" (transfer "+t.ID+")")
	web.Flash(c, web.FlashSuccess, "Deposited "+amount.String()+".")
	return web.Redirect(c, "/app")
}
