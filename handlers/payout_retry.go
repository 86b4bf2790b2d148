package handlers

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// retryKeys is the namespace of the idempotency keys of retries: a failed payout's retry has
// one key, whoever sends it and however often, so a double submit makes one payout.
var retryKeys = uuid.MustParse("6f1e3b0a-52c4-4d2b-9a55-2f0f4a3c7e11")

// retryOf is the payout that retries the failed payout t: the same payee, amount, platform,
// account, metadata and tax exemption, under the key derived from t's id. ok is false when t is
// not a failed payout to a user.
func retryOf(t *payouts.Transfer) (req payouts.CreatePayoutRequest, ok bool) {
	if t.Type != payouts.TransferPayout || t.Status != payouts.TransferFailed || t.UserID == nil {
		return req, false
	}
	req = payouts.CreatePayoutRequest{UserID: *t.UserID, Amount: int64(t.Amount), Platform: t.ExternalData.Platform,
		Metadata: t.Metadata, TaxExempt: t.TaxExempt, IdempotencyKey: uuid.NewSHA1(retryKeys, []byte(t.ID)).String()}
	// How it was paid is read off its lines, the only place the API says it: a balance line out
	// of the app's wallet funded it; a fee line out of the app's wallet was the app's to pay.
	for _, line := range t.Transactions {
		switch {
		case line.Type == payouts.TransactionBalance && line.Direction == "out":
			req.Fund = true
		case line.Type == payouts.TransactionFee && line.Direction == "out":
			req.PayoutFeeParty = payouts.FeePartyPlatform
		case line.Type == payouts.TransactionFee:
			req.PayoutFeeParty = payouts.FeePartyUser
		}
	}
	if req.Platform == payouts.PlatformACH {
		req.AccountID = t.ExternalData.AccountID
	}
	return req, true
}

// retryProps reads the failed payout of the path and what the service's preflight says its
// retry would meet.
func (h *Handlers) retryProps(c *fiber.Ctx) (pages.PayoutRetryProps, payouts.CreatePayoutRequest, error) {
	t, err := h.payouts.GetTransfer(c.UserContext(), c.Params("id"))
	if err != nil {
		return pages.PayoutRetryProps{}, payouts.CreatePayoutRequest{}, err
	}
	req, ok := retryOf(t)
	if !ok {
		// Said on the page, with no button to press; sending it anyway is refused (retryPayout).
		return pages.PayoutRetryProps{Transfer: *t, Amount: t.Amount, NotRetriable: true}, req, nil
	}
	x, err := h.payouts.Extensions(c.UserContext())
	if err != nil {
		return pages.PayoutRetryProps{}, req, err
	}
	// The public API says neither whether a transfer was tax-exempt nor whether the app's wallet
	// funded it (its lines have no direction): the operator says both.
	p := pages.PayoutRetryProps{Transfer: *t, Amount: payouts.Money(req.Amount), Method: req.Platform.Label(),
		TaxExempt: req.TaxExempt, AskTaxExempt: !x.Ours(), AskWhoPays: !x.Ours()}
	pf, err := h.preflightPayout(c.UserContext(), req)
	if err != nil {
		return p, req, err
	}
	if pf == nil {
		p.NoPreflight = true
		return p, req, nil
	}
	for _, problem := range pf.Problems {
		p.Problems = append(p.Problems, problem.Message)
	}
	for _, notice := range pf.Notices {
		p.Notices = append(p.Notices, notice.Message)
	}
	return p, req, nil
}

// confirmRetryPayout says, before anything is sent, what retrying a failed payout will do: the
// service's checks as they stand, and why the last attempt failed, which a retry may meet again.
func (h *Handlers) confirmRetryPayout(c *fiber.Ctx) error {
	p, _, err := h.retryProps(c)
	if err != nil {
		return err
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Retry payout", Content: pages.PayoutRetry(h.web.View(c), p)})
}

// retryPayout sends the retry of a failed payout, unless the service's preflight refuses it
// now; above the approval threshold it waits for a second operator, as any payout does.
func (h *Handlers) retryPayout(c *fiber.Ctx) error {
	p, req, err := h.retryProps(c)
	if err != nil {
		return err
	}
	if p.NotRetriable || len(p.Problems) > 0 {
		return h.web.Render(c, fiber.StatusUnprocessableEntity, web.Page{Title: "Retry payout", Content: pages.PayoutRetry(h.web.View(c), p)})
	}
	if p.AskTaxExempt {
		switch c.FormValue("tax_exempt") {
		case "true":
			req.TaxExempt = true
		case "false":
			req.TaxExempt = false
		default:
			p.TaxExemptError = "Choose whether the retry is tax-exempt."
			return h.web.Render(c, fiber.StatusUnprocessableEntity, web.Page{Title: "Retry payout", Content: pages.PayoutRetry(h.web.View(c), p)})
		}
		p.TaxExempt = req.TaxExempt
	}
	if p.AskWhoPays {
		switch c.FormValue("fund") {
		case "app":
			req.Fund = true
		case "payee":
			req.Fund = false
		default:
			p.WhoPaysError = "Choose who pays the retry."
			return h.web.Render(c, fiber.StatusUnprocessableEntity, web.Page{Title: "Retry payout", Content: pages.PayoutRetry(h.web.View(c), p)})
		}
	}
	adm, held, err := h.holdByPolicy(c, heldRequest{kind: kindPayout, amount: p.Amount, key: &req.IdempotencyKey,
		userID: req.UserID, payeeKey: req.UserID, method: p.Method, request: &req})
	if held || err != nil {
		return err
	}
	t, err := h.payouts.CreatePayout(c.UserContext(), req)
	h.settle(c.UserContext(), adm, idOf(t, func(t *payouts.Transfer) string { return t.ID }), err)
	var form components.Form
	if formFailed(err, &form) {
		p.Problems = []string{form.Message}
		for _, problem := range form.Errors {
			p.Problems = append(p.Problems, problem)
		}
		return h.web.Render(c, fiber.StatusUnprocessableEntity, web.Page{Title: "Retry payout", Content: pages.PayoutRetry(h.web.View(c), p)})
	}
	if err != nil {
		return err
	}
	h.audit(c, "payout.retry", "transfer", p.Transfer.ID, "retried "+p.Amount.String()+" by "+p.Method+" as transfer "+t.ID)
	switch t.Status {
	case payouts.TransferFailed:
		web.Flash(c, web.FlashError, "The retry failed too: "+pages.FailureReason(*t)+".")
	case payouts.TransferFlagged:
		web.Flash(c, web.FlashInfo, "The retry is held for review.")
	default:
		web.Flash(c, web.FlashSuccess, "Sent the retry of "+p.Amount.String()+".")
	}
	return web.Redirect(c, paths.Transfer(t.ID))
}
