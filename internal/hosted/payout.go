package hosted

import (
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	views "github.com/disburse/disburse/views/hosted"
)

// payoutPage is the payout step: what will be paid (the payout link's amount, or the wallet's
// balance for a flow without a link), what else the wallet holds, which the payee may choose to
// add, and the methods to send it to.
func (h *Handler) payoutPage(c *fiber.Ctx, p *payee, a answer) (templ.Component, error) {
	user, err := h.svc.GetUser(c.UserContext(), p.flow.AppID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	methods, err := h.svc.ListPayoutMethods(c.UserContext(), p.flow.AppID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	amount, rest := user.Wallet.WithdrawableAmount, payouts.Money(0)
	if l := p.flow.Link; l != nil {
		amount, rest = l.Amount, user.Wallet.WithdrawableAmount
		if !l.Status.Open() { // claimed by an earlier try: the link's money is in the wallet
			rest -= l.Amount
		}
	}
	return views.PayoutPage(h.view(p), views.Payout{Form: a.form, Amount: amount, Rest: max(rest, 0),
		Methods: methods, NewForm: methodForm(c, a)}), nil
}

// payout is POST /f/{id}/payout: claim the flow's payout link and pay it out to the chosen
// method, with the rest of the wallet when the payee ticked whole_wallet.
func (h *Handler) payout(c *fiber.Ctx, p *payee) error {
	wholeWallet := c.FormValue("whole_wallet") == "true"
	if _, err := h.svc.PayOutFlow(c.UserContext(), p.flow.ID, p.sess.UserID, c.FormValue("account_id"), wholeWallet); err != nil {
		return h.retry(c, p, err)
	}
	return h.next(c, p)
}
