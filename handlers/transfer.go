package handlers

import (
	"context"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// amountOf reads the dollar amount typed in the form's field into cents, or puts the problem
// reading it on the field. Which amounts may be sent is the service's rule, and its answer.
func amountOf(form *components.Form, field string) (payouts.Money, bool) {
	m, err := payouts.ParseDollars(form.Value(field))
	if err != nil {
		addProblem(form, field, err.Error())
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
	if ok && amount < 0 {
		// The direction is chosen apart: a sign typed too would silently reverse it.
		form.Errors, ok = map[string]string{"amount": "enter the amount without a sign; choose the direction below"}, false
	}
	if !ok {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, userForms{transfer: form})
	}
	// The API's sign: negative moves money from the app to the user, positive back to the app.
	toUser := form.Value("direction") != pages.DirectionFromUser
	signed, what := -amount, amount.String()+" to the user"
	if !toUser {
		signed, what = amount, amount.String()+" from the user to the app"
	}
	req := payouts.CreateTransferRequest{UserID: id, Amount: int64(signed), IdempotencyKey: idempotencyKeyOf(form)}
	// Money into a user's wallet is theirs to pay out: the approval policy counts and holds it as
	// a payout. Money back to the app sends nobody anything.
	var adm admission
	if toUser {
		var held bool
		var err error
		if adm, held, err = h.holdByPolicy(c, heldRequest{kind: kindTransfer, amount: amount, key: &req.IdempotencyKey,
			userID: id, payeeKey: id, method: "To the user's wallet", request: &req}); held || err != nil {
			return err
		}
	}
	t, err := h.payouts.CreateTransfer(c.UserContext(), req)
	h.settle(c.UserContext(), adm, idOf(t, func(t *payouts.Transfer) string { return t.ID }), err)
	if formFailed(err, &form) {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, userForms{transfer: form})
	}
	if err != nil {
		return err
	}
	h.audit(c, "transfer.create", "user", id, "moved "+what+" (transfer "+t.ID+")")
	web.Flash(c, web.FlashSuccess, "Moved "+what+".")
	return web.Redirect(c, paths.User(id))
}

var (
	transferTypes    = []payouts.TransferType{payouts.TransferPayout, payouts.TransferBalance, payouts.TransferRefill}
	transferStatuses = []payouts.TransferStatus{payouts.TransferCreated, payouts.TransferPending, payouts.TransferCompleted,
		payouts.TransferFailed, payouts.TransferFlagged}
)

// transferFilterOf reads the filters of the transfers list and of its export: the same query
// gives the same rows in both. Unknown types and statuses are no filter.
func (h *Handlers) transferFilterOf(c *fiber.Ctx) (payouts.TransferFilter, listFilter) {
	lf := h.listFilterOf(c, "type", "status")
	return payouts.TransferFilter{UserID: lf.userID, Type: choiceOf(&lf, "type", payouts.TransferType.Valid),
		Status: choiceOf(&lf, "status", payouts.TransferStatus.Valid), Range: lf.rng}, lf
}

// transfers lists transfers, newest first, narrowed by the filter form, with the count and
// totals of the whole filtered set. htmx swaps the form and the table; both work without
// JavaScript too.
func (h *Handlers) transfers(c *fiber.Ctx) error {
	filter, lf := h.transferFilterOf(c)
	p := pages.TransfersProps{Types: options("Any type", transferTypes, pages.TransferTypeName),
		Statuses: options("Any status", transferStatuses, pages.TransferStatusName), CanRetry: h.can(c, web.PermMoneyMove)}
	status, err := h.reconcile(c, "/transfers", "#transfers-body", lf, &p.List, func() (int, bool, error) {
		ctx := c.UserContext()
		source, keep, err := h.transferSource(ctx, filter)
		if err != nil {
			return 0, false, err
		}
		rows, summarized, err := reconcileRows(h, c, lf, &p.List, reconciled[payouts.Transfer]{
			path: "/transfers", target: "#transfers-body", noun: "transfers", by: "by type, status, date or amount",
			source: source, keep: keep, id: func(t payouts.Transfer) string { return t.ID }, userOf: func(t payouts.Transfer) *string { return t.UserID },
			list:      func() (*payouts.List[payouts.Transfer], error) { return h.payouts.ListTransfers(ctx, lf.page, filter) },
			summarize: func() (*payouts.Summary, error) { return h.payouts.SummarizeTransfers(ctx, filter) },
			typeName:  func(t string) string { return pages.TransferTypeName(payouts.TransferType(t)) },
		})
		p.Transfers, p.Payees = rows.rows, rows.payees
		return len(rows.rows), summarized, err
	})
	if err != nil {
		return err
	}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Transfers", Content: pages.Transfers(view, p), Fragment: pages.TransfersBody(view, p)})
}

// transfer shows one transfer: what it moved, its status timeline, its transactions and, when
// it is flagged, the review.
func (h *Handlers) transfer(c *fiber.Ctx) error {
	return h.renderTransfer(c, fiber.StatusOK, components.Form{})
}

func (h *Handlers) renderTransfer(c *fiber.Ctx, status int, review components.Form) error {
	t, err := h.payouts.GetTransfer(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	people, err := h.peopleOf(c.UserContext(), t.UserID)
	if err != nil {
		return err
	}
	x, err := h.payouts.Extensions(c.UserContext())
	if err != nil {
		return err
	}
	p := pages.TransferDetailProps{Transfer: *t, CanReview: h.can(c, web.PermMoneyMove), Review: review, People: people,
		HistoryUnreported: !x.Ours()}
	if offered, err := h.offers(c.UserContext(), payouts.ExtTransferReview); err != nil {
		return err
	} else if !offered {
		p.ReviewNote = notOffered("Releasing or rejecting a flagged transfer")
	}
	if t.Status == payouts.TransferFlagged {
		if p.Sanctions, err = h.sanctionsHits(c.UserContext(), t.UserID, func(h payouts.ScreeningHit) bool { return !h.Released }); err != nil {
			return err
		}
	}
	return h.web.Render(c, status, web.Page{Title: "Transfer " + t.ID, Content: pages.TransferDetail(h.web.View(c), p)})
}

// sanctionsHits are the payee's sanctions screening matches that keep says to, none when the
// transfer has no payee or the service does not screen.
func (h *Handlers) sanctionsHits(ctx context.Context, userID *string, keep func(payouts.ScreeningHit) bool) ([]payouts.ScreeningHit, error) {
	if userID == nil {
		return nil, nil
	}
	if offered, err := h.offers(ctx, payouts.ExtScreening); err != nil || !offered {
		return nil, err
	}
	s, err := h.payouts.GetScreening(ctx, *userID)
	if err != nil {
		return nil, err
	}
	var out []payouts.ScreeningHit
	for _, hit := range s.Hits {
		if keep(hit) {
			out = append(out, hit)
		}
	}
	return out, nil
}

// reviewTransfer releases a flagged transfer to its rail or rejects it; a rejection needs a
// reason, which the service keeps as the failure reason and the audit log keeps too.
func (h *Handlers) reviewTransfer(c *fiber.Ctx) error {
	id := c.Params("id")
	form := formOf(c, "action", "reason", "release_reason")
	action, reason := form.Value("action"), strings.TrimSpace(form.Value("reason"))
	switch {
	case action != payouts.ReviewRelease && action != payouts.ReviewReject:
		// Only a forged request gets here: the form's two buttons send the action, and no field
		// of the form could show the service's problem with it.
		return fiber.NewError(fiber.StatusBadRequest, "Choose to release or to reject the transfer.")
	case action == payouts.ReviewReject && reason == "":
		// The API lets a rejection go without a reason; the dashboard's audit log needs one.
		form.Errors = map[string]string{"reason": "say why the transfer is rejected"}
		return h.renderTransfer(c, fiber.StatusUnprocessableEntity, form)
	}
	op := h.operatorOf(c)
	if action == payouts.ReviewRelease {
		// A release names its operator and, for a payee held by sanctions screening, why: the
		// service keeps both with each match it releases.
		reason = strings.TrimSpace(form.Value("release_reason"))
	}
	t, err := h.payouts.ReviewTransfer(c.UserContext(), id, payouts.ReviewTransferRequest{Action: action, Reason: reason, Reviewer: op.Email})
	if formFailed(err, &form) {
		if problem, ok := form.Errors["reason"]; ok && action == payouts.ReviewRelease {
			delete(form.Errors, "reason")
			form.Errors["release_reason"] = problem
		}
		return h.renderTransfer(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	what := "Released " + t.Amount.String() + " to the rail."
	detail := "released " + t.Amount.String()
	if action == payouts.ReviewReject {
		what, detail = "Rejected the transfer of "+t.Amount.String()+".", "rejected "+t.Amount.String()+": "+reason
	} else if reason != "" {
		released, err := h.sanctionsHits(c.UserContext(), t.UserID, func(h payouts.ScreeningHit) bool {
			return h.Released && h.ReleasedBy == op.Email && h.ReleaseReason == reason
		})
		if err != nil {
			return err
		}
		var entries []string
		for _, hit := range released {
			entries = append(entries, fmt.Sprintf("%s %s (%s, %s, score %.2f)", hit.List, hit.EntryUID, hit.EntryName,
				strings.Join(hit.Programs, " "), hit.Score))
		}
		if len(entries) > 0 {
			detail += " despite sanctions matches " + strings.Join(entries, "; ")
		}
		detail += ": " + reason
	}
	h.audit(c, "transfer."+action, "transfer", t.ID, detail)
	web.Flash(c, web.FlashSuccess, what)
	return web.Redirect(c, paths.Transfer(t.ID))
}
