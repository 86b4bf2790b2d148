package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// The kinds of request an approval may hold.
const (
	kindPayout     = "payout"
	kindPayoutLink = "payout_link"
	kindBulk       = "bulk"
	kindTransfer   = "transfer" // money moved from the app into a user's wallet
)

// approvalKind runs the held requests of one kind once approved. A new kind (a bulk payout job,
// say) is one more entry in approvalKinds: a label, the page of what it makes, and run.
type approvalKind struct {
	label     string
	resultURL func(id string) string
	// run sends the stored request, with its idempotency key, and returns the id of what it made;
	// by is the operator who approved it.
	run func(ctx context.Context, request []byte, by dashstore.Operator) (resultID string, err error)
	// outflows is what an approved request of this kind sends, as the policy counts it; nil: the
	// approval's amount to its payee, under its idempotency key.
	outflows func(ctx context.Context, a dashstore.Approval) ([]dashstore.Outflow, error)
	// settles says that run makes the one thing its result id names, so the policy's totals
	// record the service's answer (h.settle); a bulk file's rows are paid later, by its job, and
	// count as sent from its approval.
	settles bool
}

// outflowsOf is what approving a sends, as the policy counts it, to its maker.
func (k approvalKind) outflowsOf(ctx context.Context, a dashstore.Approval) ([]dashstore.Outflow, error) {
	if k.outflows != nil {
		return k.outflows(ctx, a)
	}
	return []dashstore.Outflow{{Key: a.IdempotencyKey, Kind: a.Kind, Payee: a.PayeeKey, OperatorID: a.MakerID, Amount: a.Amount}}, nil
}

// what names a held request of this kind in flashes and the audit log: "$1,200.00 payout to Ada".
func (k approvalKind) what(a dashstore.Approval) string {
	return a.Amount.String() + " " + strings.ToLower(k.label) + " to " + a.PayeeName
}

// approvalKinds is the registry of what an approval can hold, by kind; Register builds it once
// into h.kinds.
func (h *Handlers) approvalKinds() map[string]approvalKind {
	return map[string]approvalKind{
		kindPayout: {label: "Payout", resultURL: paths.Transfer,
			run: runStored(h.payouts.CreatePayout, func(t *payouts.Transfer) string { return t.ID }), settles: true},
		kindPayoutLink: {label: "Payout link", resultURL: paths.PayoutLink,
			run: runStored(h.payouts.CreatePayoutLink, func(l *payouts.PayoutLink) string { return l.ID }), settles: true},
		kindTransfer: {label: "Transfer", resultURL: paths.Transfer,
			run: runStored(h.payouts.CreateTransfer, func(t *payouts.Transfer) string { return t.ID }), settles: true},
		kindBulk: {label: "Bulk payout", resultURL: paths.Bulk, run: h.runApprovedBulk, outflows: h.approvedBulkOutflows},
	}
}

// runStored makes the run of a kind whose request is a JSON R sent with call.
func runStored[R, T any](call func(context.Context, R) (*T, error), idOf func(*T) string) func(context.Context, []byte, dashstore.Operator) (string, error) {
	return func(ctx context.Context, request []byte, _ dashstore.Operator) (string, error) {
		var req R
		if err := json.Unmarshal(request, &req); err != nil {
			return "", err
		}
		made, err := call(ctx, req)
		if err != nil {
			return "", err
		}
		return idOf(made), nil
	}
}

// heldRequest is a validated request that may have to wait for approval.
type heldRequest struct {
	kind     string
	amount   payouts.Money
	key      *string                       // the request's idempotency key; one is made when the form sent none
	userID   string                        // the payee when a user, named from the service; else payee
	payee    *payouts.Payee                // a payout link's payee as given
	payees   string                        // who a request of many payees pays, in words
	method   string                        // how it would be paid, in words
	request  interface{ Validate() error } // stored as JSON, after key is set
	payeeKey string                        // who the policy counts it to (dashstore.Outflow.Payee)
	flows    []dashstore.Outflow           // a request of many payees' flows; else one of amount to payeeKey
}

// admission is a request the approval policy let go: its attempts in the policy's totals,
// which count until the service's answer settles them (settle).
type admission struct{ attempts []string }

// holdByPolicy asks the approval policy about r (dashstore.Store.AdmitOutflows, the one place
// that decides), with what the service's record says it sent r's payees. When the policy holds
// r, it stores r for a second operator and answers with the approval's page ("Waiting for
// approval"), and held reports that it did. Otherwise r now counts in the policy's totals, the
// caller sends it and then calls h.settle with the service's answer.
func (h *Handlers) holdByPolicy(c *fiber.Ctx, r heldRequest) (adm admission, held bool, err error) {
	// A request the service would refuse goes on to it, and its problems to the form: it sends
	// nothing, so it neither waits nor counts.
	if !h.policy.On || r.request.Validate() != nil {
		return admission{}, false, nil
	}
	ctx := c.UserContext()
	if *r.key == "" {
		*r.key = uuid.NewString()
	}
	maker := h.operatorOf(c)
	flows := r.flows
	if flows == nil {
		flows = []dashstore.Outflow{{Key: *r.key, Kind: r.kind, Payee: r.payeeKey, OperatorID: maker.ID, Amount: r.amount}}
	}
	now := h.now()
	record, err := h.payeeRecords(ctx, flows, now.Add(-h.policy.Window))
	if err != nil {
		return admission{}, false, err
	}
	attempts, reasons, err := h.store.AdmitOutflows(ctx, h.policy, flows, record, now)
	if err != nil || len(reasons) == 0 {
		return admission{attempts}, false, err
	}
	request, err := json.Marshal(r.request)
	if err != nil {
		return admission{}, true, err
	}
	a := dashstore.Approval{Kind: r.kind, Request: string(request), IdempotencyKey: *r.key, Amount: r.amount,
		AppID: h.appID, UserID: r.userID, PayeeKey: r.payeeKey, Method: r.method, MakerID: maker.ID, MakerEmail: maker.Email,
		HeldFor: reasons}
	switch {
	case r.payees != "":
		a.PayeeName = r.payees
	case r.payee != nil:
		a.PayeeName, a.PayeeEmail = pages.PayeeName(*r.payee), r.payee.Email
	case r.userID != "":
		u, err := h.getUser(ctx, r.userID)
		if err != nil {
			return admission{}, true, err
		}
		a.PayeeName, a.PayeeEmail = pages.PersonName(*u), u.Email
	}
	created, err := h.store.CreateApproval(ctx, &a, h.now())
	if err != nil {
		return admission{}, true, err
	}
	what := h.kinds[a.Kind].what(a)
	if created { // not again for a form sent twice
		h.audit(c, "approval.request", "approval", a.ID, "asked for approval of a "+what)
	}
	web.Flash(c, web.FlashInfo, "Waiting for approval: "+h.holdReasonText(a, a.HeldFor[0])+
		" Another operator must approve the "+what+".")
	return admission{}, true, web.Redirect(c, paths.Approval(a.ID))
}

// settle records the service's answer to an admitted request in the policy's totals: made
// resultID, it counts as that one thing however often its key is sent; refused (any 4xx: not
// found, a key used for another request, no money), it stops counting, and only this attempt
// does; with no answer (a timeout, a 5xx) it counts on, since it may have gone. Failing to record
// the answer only leaves the request counted, so the failure is logged, not shown.
func (h *Handlers) settle(ctx context.Context, adm admission, resultID string, err error) {
	if len(adm.attempts) == 0 {
		return
	}
	var refused *payouts.Error
	switch {
	case err == nil && len(adm.attempts) == 1:
		err = h.store.SettleSent(ctx, adm.attempts[0], resultID)
	case errors.As(err, &refused) && payouts.HTTPStatus(refused.Code) < 500:
		err = h.store.SettleRefused(ctx, adm.attempts...)
	default:
		return
	}
	if err != nil {
		h.log.Warn("approval totals: an answer of the service not recorded; the request counts as sent", "err", err)
	}
}

// payeeRecords asks the service what it sent each user flows pay since then (a payout link's
// payee who is nobody's user yet has no record there).
func (h *Handlers) payeeRecords(ctx context.Context, flows []dashstore.Outflow, since time.Time) (map[string]dashstore.PayeeRecord, error) {
	record := map[string]dashstore.PayeeRecord{}
	for _, f := range flows {
		if _, asked := record[f.Payee]; asked || !payouts.ValidID(f.Payee) {
			continue
		}
		r, err := h.sentToUser(ctx, f.Payee, since)
		if err != nil {
			return nil, err
		}
		record[f.Payee] = r
	}
	return record, nil
}

// sentToUser is what the service's record says the app sent the user since then, whoever asked
// for it (this dashboard, another, the API): money moved into their wallet (a payout link they
// claimed included) and payouts, but a payout of money a claimed link brought them once, with
// the ids of the transfers and links it read (claimedLinks). Failed transfers moved nothing.
func (h *Handlers) sentToUser(ctx context.Context, userID string, since time.Time) (dashstore.PayeeRecord, error) {
	filter := payouts.TransferFilter{UserID: userID}
	if offered, err := h.offers(ctx, payouts.ExtTransferFilters); err != nil {
		return dashstore.PayeeRecord{}, err
	} else if offered {
		filter.Range.CreatedFrom = since
	}
	r := dashstore.PayeeRecord{IDs: map[string]bool{}}
	claimed, paidByLink := map[string]bool{}, map[string]payouts.Money{}
	for t, err := range h.payouts.AllTransfers(ctx, filter) {
		if err != nil {
			return dashstore.PayeeRecord{}, err
		}
		if t.Created.Time.Before(since) {
			break // newest first: the rest are older still
		}
		r.IDs[t.ID] = true
		link := ""
		if t.PayoutLinkID != nil {
			link = *t.PayoutLinkID
			r.IDs[link] = true
		}
		switch {
		case t.Status == payouts.TransferFailed:
		case t.Type == payouts.TransferBalance && t.Amount < 0:
			r.Sent -= t.Amount
			claimed[link] = true
		case t.Type == payouts.TransferPayout && link != "":
			paidByLink[link] += t.Amount
		case t.Type == payouts.TransferPayout:
			r.Sent += t.Amount
		}
	}
	for link, m := range paidByLink {
		if !claimed[link] { // paid at once, without a claim
			r.Sent += m
		}
	}
	return r, h.claimedLinks(ctx, userID, since, r.IDs)
}

// claimedLinks adds to ids, on the public API, the payout links made since then that the user
// claimed: their claims are among the user's transfers, which there do not name their link
// (payout_link_id), so the record names each link here, and a link the dashboard sent is not
// counted again beside its claim. Our service names the link on the transfer.
func (h *Handlers) claimedLinks(ctx context.Context, userID string, since time.Time, ids map[string]bool) error {
	x, err := h.payouts.Extensions(ctx)
	if err != nil || x.Ours() {
		return err
	}
	for l, err := range h.payouts.AllPayoutLinks(ctx, payouts.PayoutLinkFilter{}) {
		if err != nil {
			return err
		}
		if l.Created.Time.Before(since) {
			return nil // newest first: the rest are older still
		}
		if l.ClaimedUserID != nil && *l.ClaimedUserID == userID {
			ids[l.ID] = true
		}
	}
	return nil
}

// holdReasonText says why the policy held a, with the totals then: "Ada Lovelace received
// $2,500.00 in the last 24 h; with this $600.00, $3,100.00: more than the limit of $3,000.00."
func (h *Handlers) holdReasonText(a dashstore.Approval, r dashstore.HoldReason) string {
	switch r.Rule {
	case dashstore.HoldRequest:
		return "this request is " + r.Adding.String() + ", more than " + r.Limit.String() + " at once."
	case dashstore.HoldPayee:
		who := "the payee " + r.Who
		if r.Who == a.PayeeKey && a.PayeeName != "" {
			who = a.PayeeName
		}
		return who + " received " + r.Sent.String() + " in the last " + windowText(r.Window) + "; with this " +
			r.Adding.String() + ", " + (r.Sent + r.Adding).String() + ": more than the limit of " + r.Limit.String() + "."
	default:
		who := "operator " + r.Who
		if r.Who == a.MakerID {
			who = a.MakerEmail
		}
		return who + " sent " + r.Sent.String() + " in the last " + windowText(r.Window) + "; with this " +
			r.Adding.String() + ", " + (r.Sent + r.Adding).String() + ": more than the limit of " + r.Limit.String() + "."
	}
}

// windowText is a window in words: "24 h", "30 min".
func windowText(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	case d >= time.Minute && d%time.Minute == 0:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	}
	return d.String()
}

// mayDecide refuses, with the reason, an operator who may not approve or reject a request that
// makerID made (empty for a request that came through the API): nobody decides their own, nor
// one of a maker who gave them their access (made their account, their role or their password)
// within the approval window, since the maker may hold that access themselves; and only the
// approver roles decide at all.
func (h *Handlers) mayDecide(op dashstore.Operator, makerID string) error {
	switch {
	case makerID != "" && op.ID == makerID:
		return fiber.NewError(fiber.StatusForbidden, "You asked for this payout: another operator must approve or reject it.")
	case makerID != "" && op.VouchedBy == makerID && h.now().Before(op.VouchedAt.Add(h.policy.Window)):
		return fiber.NewError(fiber.StatusForbidden, "The operator who asked for this payout gave you your access in the last "+
			windowText(h.policy.Window)+": another approver must decide.")
	case !slices.Contains(h.policy.Approvers, op.Role):
		return fiber.NewError(fiber.StatusForbidden, "Your role may not approve payouts. Ask "+approverRoles(h.policy.Approvers)+".")
	}
	return nil
}

// approverRoles names the roles that approve, for people: "an Admin or a Manager".
func approverRoles(roles []dashstore.Role) string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = "a " + r.Label()
	}
	if len(names) == 0 {
		return "an admin to configure approvers"
	}
	return strings.Join(names, " or ")
}

// decisionOf reads an approve or reject form: action is payouts.ReviewApprove or
// payouts.ReviewReject, as the API's review takes it. A rejection needs a reason, kept in the
// audit log.
func decisionOf(c *fiber.Ctx) (form components.Form, action, reason string, err error) {
	form = formOf(c, "action", "reason")
	action, reason = form.Value("action"), strings.TrimSpace(form.Value("reason"))
	switch {
	case action != payouts.ReviewApprove && action != payouts.ReviewReject:
		// Only a forged request gets here: the page's two buttons send the action.
		return form, "", "", fiber.NewError(fiber.StatusBadRequest, "Choose to approve or to reject.")
	case action == payouts.ReviewReject && reason == "":
		form.Errors = map[string]string{"reason": "say why it is rejected"}
	case len(reason) > 500:
		form.Errors = map[string]string{"reason": "use at most 500 characters"}
	}
	return form, action, reason, nil
}

// approval shows one held request: what would happen, and Approve / Reject to those who may.
func (h *Handlers) approval(c *fiber.Ctx) error {
	return h.renderApproval(c, fiber.StatusOK, components.Form{})
}

func (h *Handlers) renderApproval(c *fiber.Ctx, status int, decision components.Form) error {
	a, err := h.store.Approval(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	item := h.approvalItem(c.UserContext(), a)
	if err := h.checkHeld(c, a, &item); err != nil {
		return err
	}
	if a.Kind == kindBulk && item.Open {
		if item.BulkReview, err = h.heldBulkReview(c.UserContext(), a, c.QueryInt("rows", 1)); err != nil {
			return err
		}
	}
	return h.renderDecision(c, status, item, a.MakerID, decision)
}

// heldBulkReview is page (from 1) of who a held bulk file pays, as its preview listed them, for
// the approver to read what they approve.
func (h *Handlers) heldBulkReview(ctx context.Context, a dashstore.Approval, page int) (pages.BulkReview, error) {
	_, rows, err := h.heldBulkRows(ctx, a)
	if err != nil {
		return pages.BulkReview{}, err
	}
	return h.bulkReview(ctx, rows, page)
}

// heldBulkRows is the job a bulk approval holds and its rows.
func (h *Handlers) heldBulkRows(ctx context.Context, a dashstore.Approval) (dashstore.BulkJob, []dashstore.BulkRow, error) {
	var r bulkApproval
	if err := json.Unmarshal([]byte(a.Request), &r); err != nil {
		return dashstore.BulkJob{}, nil, err
	}
	job, rows, _, err := h.bulkRowsOf(ctx, r.JobID)
	return job, rows, err
}

// checkHeld asks the service's preflight about a request waiting for approval (a payout, a
// payout link, money into a user's wallet, or a bulk file's rows), so that an approver sees what would refuse it before
// approving. Only those who may pay or approve ask.
func (h *Handlers) checkHeld(c *fiber.Ctx, a dashstore.Approval, item *pages.ApprovalItem) error {
	if a.Status != dashstore.ApprovalPending || !h.seesChecks(c) {
		return nil
	}
	if a.Kind == kindBulk {
		return h.checkHeldBulk(c.UserContext(), a, item)
	}
	ask, title, err := h.heldPreflight(a)
	if err != nil || ask == nil {
		return err
	}
	return h.check(c.UserContext(), item, title, ask)
}

// heldPreflight is the preflight's question about a held request of one payment, and the line
// that heads what it would refuse; nil for a bulk file, whose rows are asked one by one.
func (h *Handlers) heldPreflight(a dashstore.Approval) (ask func(context.Context) (*payouts.Preflight, error), title string, err error) {
	switch a.Kind {
	case kindPayout:
		ask, err = askAbout(a.Request, h.payouts.PreflightPayout)
		title = "The service would refuse this payout now:"
	case kindPayoutLink:
		ask, err = askAbout(a.Request, h.payouts.PreflightPayoutLink)
		title = "The service would refuse this link or its claim now:"
	case kindTransfer:
		ask, err = askAbout(a.Request, h.payouts.PreflightTransfer)
		title = "The service would refuse this transfer now:"
	}
	return ask, title, err
}

// refusedApproval is the decision form refusing an approval the service's preflight, asked
// through ask, would refuse now, with its reasons; nil when it would not, or has no preflight.
// Approving goes through the same checks as the forms, so nothing approved makes a payout or a
// link its payee cannot finish (a link whose claim needs a W-9 the payee never gave).
func (h *Handlers) refusedApproval(ctx context.Context, ask func(context.Context) (*payouts.Preflight, error)) (*components.Form, error) {
	pf, err := h.preflight(ctx, ask)
	if err != nil || pf == nil || pf.OK {
		return nil, err
	}
	return &components.Form{Message: "Not approved: " + problemsText(*pf) + " It stays open: approve it once that is fixed, or reject it."}, nil
}

// askAbout reads a held request, stored as JSON, and returns the question of the preflight
// about it.
func askAbout[T any](stored string, preflight func(context.Context, T) (*payouts.Preflight, error)) (func(context.Context) (*payouts.Preflight, error), error) {
	var req T
	if err := json.Unmarshal([]byte(stored), &req); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (*payouts.Preflight, error) { return preflight(ctx, req) }, nil
}

// seesChecks reports whether the operator may see what the service's preflight says of a
// waiting request: those who may pay or approve.
func (h *Handlers) seesChecks(c *fiber.Ctx) bool {
	return h.can(c, web.PermMoneyMove) || slices.Contains(h.policy.Approvers, h.operatorOf(c).Role)
}

// check puts on item what the service's preflight, asked through ask, says of a waiting request:
// what would refuse it (under title) and its notices; or, when the service has no preflight,
// that it cannot be checked here.
func (h *Handlers) check(ctx context.Context, item *pages.ApprovalItem, title string, ask func(context.Context) (*payouts.Preflight, error)) error {
	pf, err := h.preflight(ctx, ask)
	if err != nil {
		return err
	}
	item.Checked, item.RefusalsTitle = true, title
	if pf == nil {
		item.ChecksNote = checksNotOffered
		return nil
	}
	for _, p := range pf.Problems {
		item.Refusals = append(item.Refusals, p.Message)
	}
	for _, n := range pf.Notices {
		item.Notices = append(item.Notices, n.Message)
	}
	return nil
}

// checksNotOffered says that the service cannot check a request before it is sent.
var checksNotOffered = notOffered("Checking it against the service's rules before it is approved")

// checkHeldBulk asks the service's preflight about the rows a held bulk file would send (its
// good rows not paid), as a run sends them, and lists those it would refuse with why.
func (h *Handlers) checkHeldBulk(ctx context.Context, a dashstore.Approval, item *pages.ApprovalItem) error {
	item.Checked, item.Bulk = true, true
	if ok, err := h.offers(ctx, payouts.ExtPreflight); !ok || err != nil {
		item.ChecksNote = checksNotOffered
		return err
	}
	job, rows, err := h.heldBulkRows(ctx, a)
	if err != nil {
		return err
	}
	toSend := slices.DeleteFunc(rows, func(r dashstore.BulkRow) bool { return r.Problem != "" || r.Sent() })
	problems, err := h.bulkPreflight(ctx, job.FileHash, toSend)
	if err != nil {
		return err
	}
	for _, r := range toSend {
		if p, refused := problems[r.Row]; refused {
			item.Refusals = append(item.Refusals, fmt.Sprintf("Row %d (%s): %s", r.Row, r.UserRef, p))
		}
	}
	return nil
}

// renderDecision shows an item of the queue with its decision form to those who may decide.
func (h *Handlers) renderDecision(c *fiber.Ctx, status int, item pages.ApprovalItem, makerID string, decision components.Form) error {
	p := pages.ApprovalProps{Item: item, Decision: decision}
	if err := h.mayDecide(h.operatorOf(c), makerID); err != nil {
		var fe *fiber.Error
		if errors.As(err, &fe) {
			p.WhyNot = fe.Message
		}
	} else {
		p.CanDecide = true
	}
	return h.web.Render(c, status, web.Page{Title: "Approval", Content: pages.ApprovalDetail(h.web.View(c), p)})
}

// decideApproval approves a held request (running it through the client with its idempotency
// key, so approving twice pays once) or rejects it with a reason.
func (h *Handlers) decideApproval(c *fiber.Ctx) error {
	ctx, op, id := c.UserContext(), h.operatorOf(c), c.Params("id")
	a, err := h.store.Approval(ctx, id)
	if err != nil {
		return err
	}
	if err := h.mayDecide(op, a.MakerID); err != nil {
		return err
	}
	form, action, reason, err := decisionOf(c)
	if err != nil {
		return err
	}
	if form.Errors != nil {
		return h.renderApproval(c, fiber.StatusUnprocessableEntity, form)
	}
	kind, known := h.kinds[a.Kind]
	if !known {
		return fiber.NewError(fiber.StatusConflict, "This dashboard does not know how to run a "+a.Kind+".")
	}
	what := kind.what(a)
	if action == payouts.ReviewReject {
		if _, changed, err := h.store.RejectApproval(ctx, id, op, reason, h.now()); err != nil || !changed {
			return h.alreadyDecided(c, id, err)
		}
		h.audit(c, "approval.reject", "approval", id, "rejected the "+what+": "+reason)
		web.Flash(c, web.FlashSuccess, "Rejected the "+what+"; nothing was paid.")
		return web.Redirect(c, paths.Approval(id))
	}
	if ask, _, err := h.heldPreflight(a); err != nil || ask != nil {
		if err != nil {
			return err
		}
		refused, err := h.refusedApproval(ctx, ask)
		if err != nil {
			return err
		}
		if refused != nil {
			h.audit(c, "approval.refuse", "approval", id, "refused approving the "+what+": "+refused.Message)
			return h.renderApproval(c, fiber.StatusUnprocessableEntity, *refused)
		}
	}
	a, started, err := h.store.StartApproval(ctx, id, op, h.now())
	if err != nil || !started {
		return h.alreadyDecided(c, id, err)
	}
	// Approved, it counts in its maker's and payees' totals, limits or not, before it is sent.
	flows, err := kind.outflowsOf(ctx, a)
	if err != nil {
		return err
	}
	attempts, err := h.store.RecordOutflows(ctx, flows, h.now())
	if err != nil {
		return err
	}
	resultID, err := kind.run(ctx, []byte(a.Request), op)
	if kind.settles {
		h.settle(ctx, admission{attempts}, resultID, err)
	}
	var refused *payouts.Error
	switch {
	case errors.As(err, &refused) && web.StatusOf(err) < 500 && !retryable(refused.Code):
		// The service said no (not enough money, no payout method): final, and recorded.
		if _, err := h.store.FinishApproval(ctx, id, dashstore.ApprovalFailed, "", refused.Message, h.now()); err != nil {
			return err
		}
		h.audit(c, "approval.fail", "approval", id, "approved the "+what+"; the service refused it: "+refused.Message)
		web.Flash(c, web.FlashError, "Approved, but the "+what+" failed: "+refused.Message)
	case err != nil:
		// No answer, a server error, or the same key still at work (a second approver at the
		// same moment): it stays approving, and approving again sends the same idempotency key,
		// so it pays at most once.
		return err
	default:
		if _, err := h.store.FinishApproval(ctx, id, dashstore.ApprovalApproved, resultID, "", h.now()); err != nil {
			return err
		}
		h.audit(c, "approval.approve", "approval", id, "approved the "+what+" ("+a.Kind+" "+resultID+")")
		web.Flash(c, web.FlashSuccess, "Approved: the "+what+" is on its way.")
	}
	return web.Redirect(c, paths.Approval(id))
}

// retryable reports whether a refusal says "not now" rather than "no": the approval stays open.
func retryable(code string) bool {
	return code == payouts.EResourceBusy || code == payouts.ETooManyRequests
}

// alreadyDecided answers a decision that came after another operator's.
func (h *Handlers) alreadyDecided(c *fiber.Ctx, id string, err error) error {
	if err != nil {
		return err
	}
	web.Flash(c, web.FlashInfo, "Someone decided this request first; it is shown as it stands.")
	return web.Redirect(c, paths.Approval(id))
}

// idOf is the id of what a call made, or "" when it made nothing.
func idOf[T any](made *T, id func(*T) string) string {
	if made == nil {
		return ""
	}
	return id(made)
}
