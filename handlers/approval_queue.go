package handlers

import (
	"context"
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// queueOldest is how many waiting items the overview lists.
const queueOldest = 5

// approvals lists what waits for a second operator (held payouts and links, and payout requests
// from the API), the oldest page of it, and the latest decided.
func (h *Handlers) approvals(c *fiber.Ctx) error {
	ctx := c.UserContext()
	open, waiting, note, err := h.openApprovals(ctx, payouts.MaxLimit)
	if err != nil {
		return err
	}
	decided, _, err := h.store.Approvals(ctx, dashstore.ApprovalFilter{Limit: 50})
	if err != nil {
		return err
	}
	p := pages.ApprovalsProps{Open: open, Waiting: waiting, Notes: notesOf(note)}
	for _, a := range decided {
		p.Decided = append(p.Decided, h.approvalRow(a))
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Approvals", Content: pages.Approvals(h.web.View(c), p)})
}

// approvalQueue is the overview's section: how many wait, and the oldest.
func (h *Handlers) approvalQueue(ctx context.Context) (pages.ApprovalQueueProps, error) {
	oldest, waiting, note, err := h.openApprovals(ctx, queueOldest)
	return pages.ApprovalQueueProps{Count: waiting, Oldest: oldest, Notes: notesOf(note)}, err
}

// openApprovals is the oldest limit of what waits, held requests and created API payout requests
// together, oldest first, and how many wait in all. The oldest limit of both together are among
// the oldest limit of each, so no more is read. On a service without our queue of payout
// requests (the public API), note says over how many of them the queue was found (public_api.go).
func (h *Handlers) openApprovals(ctx context.Context, limit int) (oldest []pages.ApprovalItem, waiting int, note string, err error) {
	held, _, err := h.store.Approvals(ctx, dashstore.ApprovalFilter{Open: true, Limit: limit})
	if err != nil {
		return nil, 0, "", err
	}
	heldCount, err := h.store.CountOpenApprovals(ctx)
	if err != nil {
		return nil, 0, "", err
	}
	requests, requestCount, note, err := h.createdPayoutRequests(ctx, limit)
	if err != nil {
		return nil, 0, "", err
	}
	items := make([]pages.ApprovalItem, 0, len(held)+len(requests))
	for _, a := range held {
		items = append(items, h.approvalRow(a))
	}
	for _, r := range requests {
		items = append(items, payoutRequestItem(r))
	}
	slices.SortStableFunc(items, func(a, b pages.ApprovalItem) int { return a.Created.Compare(b.Created) })
	return items[:min(len(items), limit)], heldCount + requestCount, note, nil
}

// approvalRow is a held request as the queue shows it.
func (h *Handlers) approvalRow(a dashstore.Approval) pages.ApprovalItem {
	item := pages.ApprovalItem{URL: paths.Approval(a.ID), DecideURL: paths.ApprovalDecision(a.ID), Kind: a.Kind,
		Amount: a.Amount, PayeeName: a.PayeeName, PayeeEmail: a.PayeeEmail, Method: a.Method, Maker: a.MakerEmail,
		Status: string(a.Status), Open: a.Status.Open(), Checker: a.CheckerEmail, Reason: a.Reason,
		ResultID: a.ResultID, Created: a.Created, Decided: a.Decided}
	if a.UserID != "" {
		item.PayeeURL = paths.User(a.UserID)
	}
	for _, r := range a.HeldFor {
		item.HeldFor = append(item.HeldFor, h.holdReasonText(a, r))
	}
	if kind, ok := h.kinds[a.Kind]; ok {
		item.Kind = kind.label
		if a.ResultID != "" {
			item.ResultURL = kind.resultURL(a.ResultID)
		}
	}
	return item
}

// approvalItem is a held request for its page, with its maker's and checker's names.
func (h *Handlers) approvalItem(ctx context.Context, a dashstore.Approval) pages.ApprovalItem {
	item := h.approvalRow(a)
	item.Maker, item.Checker = h.operatorName(ctx, a.MakerID, a.MakerEmail), h.operatorName(ctx, a.CheckerID, a.CheckerEmail)
	return item
}

// operatorName is "Name (email)" for an operator the dashboard still has, else the email kept.
func (h *Handlers) operatorName(ctx context.Context, id, email string) string {
	if id == "" {
		return email
	}
	if op, err := h.store.Operator(ctx, id); err == nil && op.Name != "" {
		return op.Name + " (" + email + ")"
	}
	return email
}

// payoutRequestItem is a payout request from the API as the queue shows it.
func payoutRequestItem(r payouts.PayoutRequest) pages.ApprovalItem {
	item := pages.ApprovalItem{URL: paths.PayoutRequest(r.ID), DecideURL: paths.PayoutRequestReview(r.ID), FromAPI: true,
		Kind: "Payout request", Amount: r.Amount, PayeeName: pages.PayeeName(r.Payee), PayeeEmail: r.Payee.Email,
		Method: "A payout to the payee's default method, or a payout link when they have none", Memo: r.Memo,
		Maker: "the API", Status: string(r.Status), Open: r.Status == payouts.RequestCreated, Reason: r.RejectReason,
		Created: r.Created.Time}
	if r.User != nil {
		item.PayeeName = pages.PersonName(*r.User)
		item.PayeeEmail, item.PayeeURL = r.User.Email, paths.User(r.User.ID)
	}
	switch {
	case r.TransferID != nil:
		item.ResultID, item.ResultURL = *r.TransferID, paths.Transfer(*r.TransferID)
	case r.PayoutLink != nil:
		item.ResultID, item.ResultURL = r.PayoutLink.ID, paths.PayoutLink(r.PayoutLink.ID)
	}
	return item
}

// payoutRequest shows a payout request from the API with the approve and reject forms.
func (h *Handlers) payoutRequest(c *fiber.Ctx) error {
	return h.renderPayoutRequest(c, fiber.StatusOK, components.Form{})
}

func (h *Handlers) renderPayoutRequest(c *fiber.Ctx, status int, decision components.Form) error {
	r, err := h.payouts.GetPayoutRequest(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	cannot, err := h.cannotReviewPayoutRequests(c.UserContext())
	if err != nil {
		return err
	}
	if cannot != "" {
		return h.web.Render(c, status, web.Page{Title: "Approval", Content: pages.ApprovalDetail(h.web.View(c), pages.ApprovalProps{
			Item: payoutRequestItem(*r), CannotDecide: cannot})})
	}
	item := payoutRequestItem(*r)
	if item.Open && h.seesChecks(c) {
		err := h.check(c.UserContext(), &item, "Approving it now would meet these problems:", func(ctx context.Context) (*payouts.Preflight, error) {
			return h.payouts.PreflightPayoutRequestApproval(ctx, r.ID)
		})
		if err != nil {
			return err
		}
	}
	return h.renderDecision(c, status, item, "", decision)
}

// cannotReviewPayoutRequests is the line that says why payout requests cannot be approved or
// rejected here, when the service lacks our review route (the public API has none), else "".
func (h *Handlers) cannotReviewPayoutRequests(ctx context.Context) (string, error) {
	offered, err := h.offers(ctx, payouts.ExtPayoutRequestReview)
	if err != nil || offered {
		return "", err
	}
	return notOffered("Approving or rejecting a payout request") + " Decide it on the Dots dashboard.", nil
}

// reviewPayoutRequest approves or rejects a payout request from the API, under the same role rule
// as the dashboard's own; the service makes a request's approval happen once.
func (h *Handlers) reviewPayoutRequest(c *fiber.Ctx) error {
	if err := h.mayDecide(h.operatorOf(c), ""); err != nil {
		return err
	}
	if cannot, err := h.cannotReviewPayoutRequests(c.UserContext()); err != nil || cannot != "" {
		if err != nil {
			return err
		}
		return h.renderPayoutRequest(c, fiber.StatusConflict, components.Form{})
	}
	form, action, reason, err := decisionOf(c)
	if err != nil {
		return err
	}
	if form.Errors != nil {
		return h.renderPayoutRequest(c, fiber.StatusUnprocessableEntity, form)
	}
	if action == payouts.ReviewApprove {
		refused, err := h.refusedApproval(c.UserContext(), func(ctx context.Context) (*payouts.Preflight, error) {
			return h.payouts.PreflightPayoutRequestApproval(ctx, c.Params("id"))
		})
		if err != nil {
			return err
		}
		if refused != nil {
			h.audit(c, "payout_request.refuse", "payout_request", c.Params("id"), "refused approving: "+refused.Message)
			return h.renderPayoutRequest(c, fiber.StatusUnprocessableEntity, *refused)
		}
	}
	r, err := h.payouts.ReviewPayoutRequest(c.UserContext(), c.Params("id"), payouts.ReviewPayoutRequestRequest{Action: action, Reason: reason})
	if formFailed(err, &form) {
		return h.renderPayoutRequest(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	item := payoutRequestItem(*r)
	what := r.Amount.String() + " payout request for " + item.PayeeName
	if action == payouts.ReviewApprove {
		h.audit(c, "payout_request.approve", "payout_request", r.ID, "approved the "+what+" (made "+item.ResultID+")")
		web.Flash(c, web.FlashSuccess, "Approved the "+what+".")
	} else {
		h.audit(c, "payout_request.reject", "payout_request", r.ID, "rejected the "+what+": "+reason)
		web.Flash(c, web.FlashSuccess, "Rejected the "+what+"; nothing was paid.")
	}
	return web.Redirect(c, paths.PayoutRequest(r.ID))
}
