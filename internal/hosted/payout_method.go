package hosted

import (
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	views "github.com/disburse/disburse/views/hosted"
)

// payoutMethodsPage is the manage-payouts and manage-payments steps: saved methods, the form to
// add one, and the way on.
func (h *Handler) payoutMethodsPage(c *fiber.Ctx, p *payee, a answer) (templ.Component, error) {
	user, err := h.svc.GetUser(c.UserContext(), p.flow.AppID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	methods, err := h.svc.ListPayoutMethods(c.UserContext(), p.flow.AppID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	return views.PayoutMethodsPage(h.view(p), views.PayoutMethods{Step: p.step(), Methods: methods,
		Wallet: user.Wallet, NewForm: methodForm(c, a), Continue: a.form.Message}), nil
}

// methodForm is the add-a-method form of a step page, on the platform chosen by a link or
// posted, PayPal unless one was.
func methodForm(c *fiber.Ctx, a answer) views.MethodForm {
	platform := payouts.Platform(c.FormValue("platform"))
	if !platform.Valid() {
		platform = payouts.PlatformPayPal
	}
	return views.MethodForm{Form: a.method, Platform: platform,
		Open: c.FormValue("platform") != "" || len(a.method.Errors) > 0 || a.method.Message != ""}
}

// addPayoutMethod is POST /f/{id}/payout-methods. On the manage steps a saved method completes
// the step; on the payout step the payee is back to choosing where the money goes.
func (h *Handler) addPayoutMethod(c *fiber.Ctx, p *payee) error {
	_, err := h.svc.AddPayoutMethod(c.UserContext(), p.flow.AppID, p.sess.UserID, payouts.AddPayoutMethodRequest{
		Platform: payouts.Platform(c.FormValue("platform")), Email: c.FormValue("email"),
		PhoneNumber: c.FormValue("phone_number"), Handle: c.FormValue("handle"), CashTag: c.FormValue("cash_tag"),
		RoutingNumber: c.FormValue("routing_number"), AccountNumber: c.FormValue("account_number"),
		AccountType: payouts.AccountType(c.FormValue("account_type")),
	})
	if err != nil {
		a, isForm := failed(c, err)
		if !isForm {
			return err
		}
		a.method, a.form = a.form, components.Form{}
		return h.reshow(c, p, a)
	}
	if step := p.step(); step != payouts.StepPayout {
		return h.finish(c, p, step)
	}
	return h.next(c, p)
}

// confirmPayoutMethods is POST /f/{id}/manage-payouts (and manage-payments): go on with the
// methods saved.
func (h *Handler) confirmPayoutMethods(c *fiber.Ctx, p *payee) error {
	if err := h.svc.ConfirmPayoutMethods(c.UserContext(), p.flow.ID, p.sess.UserID, p.step()); err != nil {
		return h.retry(c, p, err)
	}
	return h.next(c, p)
}
