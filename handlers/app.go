package handlers

import (
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
		list, note, err := listPage(ctx, h, payouts.ExtTransferFilters, page, refills, payouts.TransferFilter{},
			h.payouts.ListTransfers, h.payouts.AllTransfers, transferMatches(refills), "transfers", "by type")
		if err != nil {
			return err
		}
		p.App, p.Deposits = app, list.Data
		p.Notes = notesOf(note)
		if n := len(list.Data); n > 0 && note == "" {
			p.Pages = pageLinks("/app", nil, page, list.Data[0].ID, list.Data[n-1].ID, list.HasMore, "#deposits")
		}
	}
	return h.web.Render(c, status, web.Page{Title: "App wallet", Content: pages.App(p), Fragment: pages.Deposits(p)})
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
