package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

var payoutMethodFields = []string{"email", "phone_number", "handle", "cash_tag", "routing_number",
	"account_number", "account_type", "is_default"}

func platformOf(s string) payouts.Platform {
	if p := payouts.Platform(s); p.Valid() {
		return p
	}
	return payouts.PlatformACH
}

// newPayoutMethod shows the form of one platform; its tabs swap the form with htmx.
func (h *Handlers) newPayoutMethod(c *fiber.Ctx) error {
	return h.renderPayoutMethod(c, fiber.StatusOK, platformOf(c.Query("platform")),
		components.Form{Values: map[string]string{"account_type": "checking"}})
}

func (h *Handlers) renderPayoutMethod(c *fiber.Ctx, status int, platform payouts.Platform, form components.Form) error {
	u, err := h.getUser(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	p := pages.PayoutMethodProps{UserID: u.ID, UserName: u.Name(), Platform: platform, Form: form}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Add payout method", Content: pages.PayoutMethodNew(view, p),
		Fragment: pages.PayoutMethodForm(view, p)})
}

// addPayoutMethod saves a payout method; the service validates it and its problems land on the
// form's fields.
func (h *Handlers) addPayoutMethod(c *fiber.Ctx) error {
	platform := platformOf(c.FormValue("platform"))
	form := formOf(c, payoutMethodFields...)
	req := payouts.AddPayoutMethodRequest{Platform: platform, IsDefault: form.Value("is_default") == "true"}
	switch platform {
	case payouts.PlatformPayPal:
		req.Email = strings.TrimSpace(form.Value("email"))
	case payouts.PlatformVenmo:
		req.PhoneNumber, req.Handle = strings.TrimSpace(form.Value("phone_number")), strings.TrimSpace(form.Value("handle"))
	case payouts.PlatformCashApp:
		req.CashTag = strings.TrimSpace(form.Value("cash_tag"))
		req.RoutingNumber, req.AccountNumber = strings.TrimSpace(form.Value("routing_number")), strings.TrimSpace(form.Value("account_number"))
	case payouts.PlatformACH:
		req.RoutingNumber, req.AccountNumber = strings.TrimSpace(form.Value("routing_number")), strings.TrimSpace(form.Value("account_number"))
		req.AccountType = payouts.AccountType(form.Value("account_type"))
	}
	m, err := h.payouts.AddPayoutMethod(c.UserContext(), c.Params("id"), req)
	// The account number is never sent back to the browser, even to correct it.
	form.Values["account_number"] = ""
	if formFailed(err, &form) {
		return h.renderPayoutMethod(c, fiber.StatusUnprocessableEntity, platform, form)
	}
	if err != nil {
		return err
	}
	detail := platform.Label()
	if m.Mask != "" {
		detail += " •••• " + m.Mask
	}
	h.audit(c, "payout_method.add", "user", c.Params("id"), detail)
	web.Flash(c, web.FlashSuccess, "Saved "+detail+".")
	return web.Redirect(c, paths.User(c.Params("id")))
}

// checkRoutingNumber answers the routing number field again with its ABA checksum echoed, as
// the operator types.
func (h *Handlers) checkRoutingNumber(c *fiber.Ctx) error {
	field := pages.RoutingNumberField(c.Params("id"), strings.TrimSpace(c.Query("routing_number")), "")
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Routing number", Content: field, Fragment: field})
}
