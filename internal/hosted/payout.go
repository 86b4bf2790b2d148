package hosted

import (
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	views "github.com/disburse/disburse/views/hosted"
)

// payoutPage is the payout step: what will be paid (the payout link's amount, not yet claimed,
// plus what the payee's wallet already holds) and the methods to send it to.
func (h *Handler) payoutPage(c *fiber.Ctx, p *payee, a answer) (templ.Component, error) {
	user, err := h.svc.GetUser(c.UserContext(), p.flow.AppID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	methods, err := h.svc.ListPayoutMethods(c.UserContext(), p.flow.AppID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	amount := user.Wallet.WithdrawableAmount
	if l := p.flow.Link; l != nil && l.Status.Open() {
		amount += l.Amount
	}
	return views.PayoutPage(h.view(p), views.Payout{Form: a.form, Amount: amount, Methods: methods,
		NewForm: methodForm(c, a)}), nil
}

// payout is POST /f/{id}/payout: claim the flow's payout link and pay it out to the chosen
// method.
func (h *Handler) payout(c *fiber.Ctx, p *payee) error {
	if _, err := h.svc.PayOutFlow(c.UserContext(), p.flow.ID, p.sess.UserID, c.FormValue("account_id")); err != nil {
		return h.retry(c, p, err)
	}
	return h.next(c, p)
}
