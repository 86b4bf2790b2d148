package handlers

import (
	"github.com/gofiber/fiber/v2"

	"disburse/payouts"
	"disburse/views/components"
	"disburse/views/pages"
	"disburse/web"
)

// amountOf reads the dollar amount typed in the form's field into cents, or puts the problem on
// the field. Amounts must be greater than zero; the direction is chosen apart.
func amountOf(form *components.Form, field string) (payouts.Money, bool) {
	m, err := payouts.ParseDollars(form.Value(field))
	problem := ""
	switch {
	case err != nil:
		problem = err.Error()
	case m <= 0:
		problem = "enter an amount greater than zero"
	case m > payouts.MaxAmount:
		problem = "amount is too large"
	}
	if problem != "" {
		form.Errors = map[string]string{field: problem}
		return 0, false
	}
	return m, true
}

// idempotencyKeyOf returns the form's idempotency key when it is one; otherwise the client makes
// one, which still protects against retries of this request.
func idempotencyKeyOf(form components.Form) string {
	if k := form.Value("idempotency_key"); payouts.ValidID(k) {
		return k
	}
	return ""
}

// moveMoney moves money between the app and a user. The form's idempotency key makes a double
// submit move it once.
func (h *Handlers) moveMoney(c *fiber.Ctx) error {
	id := c.Params("id")
	form := formOf(c, "direction", "amount", "idempotency_key")
	amount, ok := amountOf(&form, "amount")
	if !ok {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, form, components.Form{})
	}
	// The API's sign: negative moves money from the app to the user, positive back to the app.
	signed, what := -amount, amount.String()+" to the user"
	if form.Value("direction") == pages.DirectionFromUser {
		signed, what = amount, amount.String()+" from the user to the app"
	}
	t, err := h.payouts.CreateTransfer(c.UserContext(), payouts.CreateTransferRequest{
		UserID: id, Amount: int64(signed), IdempotencyKey: idempotencyKeyOf(form)})
	if formFailed(err, &form) {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, form, components.Form{})
	}
	if err != nil {
		return err
	}
	h.audit(c, "transfer.create", "user", id, "moved "+what+" (transfer "+t.ID+")")
	web.Flash(c, web.FlashSuccess, "Moved "+what+".")
	return web.Redirect(c, "/users/"+id)
}
