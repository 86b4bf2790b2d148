package handlers

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

var payoutFields = []string{"platform", "account_id", "amount", "fund", "payout_fee_party", "idempotency_key"}

// payoutFormProps is the send-payout form of u's page, with a fresh idempotency key: the key
// goes with the form, so a double click or a resubmitted form pays once.
func payoutFormProps(u payouts.User, methods []payouts.PayoutMethod, form components.Form) pages.PayoutFormProps {
	if form.Values == nil {
		form.Values = map[string]string{"platform": string(payouts.PlatformDefault)}
	}
	return pages.PayoutFormProps{Form: form, Methods: methods, IdempotencyKey: uuid.NewString(), OwesW9: w9Owed(u)}
}

// w9Owed is u's name when u owes a W-9, for the warning inside a form that pays them; else empty.
func w9Owed(u payouts.User) string {
	if u.Compliance.OwesW9() {
		return payeeLabel(u)
	}
	return ""
}

// chosenOwesW9 is w9Owed of the user chosen in form's payee picker; empty when none is chosen.
func (h *Handlers) chosenOwesW9(ctx context.Context, form components.Form) (string, error) {
	id := strings.TrimSpace(form.Value("user_id"))
	if !payouts.ValidID(id) {
		return "", nil
	}
	u, err := h.userIfAny(ctx, id)
	if u == nil || err != nil {
		return "", err
	}
	return w9Owed(*u), nil
}

// sendPayout pays a user's money out on a rail: their default method or a platform they have
// saved (a bank account picked by id), optionally funded from the app's wallet first.
func (h *Handlers) sendPayout(c *fiber.Ctx) error {
	id := c.Params("id")
	form := formOf(c, payoutFields...)
	amount, _ := amountOf(&form, "amount")
	req := payouts.CreatePayoutRequest{UserID: id, Amount: int64(amount), Platform: payouts.Platform(form.Value("platform")),
		Fund: form.Value("fund") == "true", PayoutFeeParty: payouts.FeeParty(form.Value("payout_fee_party")),
		IdempotencyKey: idempotencyKeyOf(form)}
	if req.Platform == payouts.PlatformACH {
		req.AccountID = form.Value("account_id")
	}
	if problemsFound(&form, req.Validate) {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, userForms{payout: form})
	}
	// A payout the service would refuse is not held for a second operator: its problems go to
	// the form, as the service would answer them. Whether it would be held depends on the totals
	// (holdByPolicy), so every payout is asked about while the policy is on.
	if h.policy.On {
		pf, err := h.preflightPayout(c.UserContext(), req)
		if err != nil {
			return err
		}
		if preflightFailed(pf, &form) {
			return h.renderUser(c, fiber.StatusUnprocessableEntity, userForms{payout: form})
		}
	}
	adm, held, err := h.holdByPolicy(c, heldRequest{kind: kindPayout, amount: amount, key: &req.IdempotencyKey,
		userID: id, payeeKey: id, method: req.Platform.Label(), request: &req})
	if held || err != nil {
		return err
	}
	t, err := h.payouts.CreatePayout(c.UserContext(), req)
	h.settle(c.UserContext(), adm, idOf(t, func(t *payouts.Transfer) string { return t.ID }), err)
	if formFailed(err, &form) {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, userForms{payout: form})
	}
	if err != nil {
		return err
	}
	what := amount.String() + " by " + t.ExternalData.Platform.Label()
	h.audit(c, "payout.create", "user", id, "paid out "+what+" (transfer "+t.ID+")")
	switch t.Status {
	case payouts.TransferFlagged:
		web.Flash(c, web.FlashInfo, "The payout of "+what+" is held for review.")
	case payouts.TransferFailed:
		web.Flash(c, web.FlashError, "The payout of "+what+" failed: "+pages.FailureReason(*t)+".")
	default:
		web.Flash(c, web.FlashSuccess, "Sent a payout of "+what+".")
	}
	return web.Redirect(c, paths.User(id))
}
