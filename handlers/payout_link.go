package handlers

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/hosted"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

const linksPerPage = 25

var linkStatuses = []payouts.PayoutLinkStatus{payouts.LinkDelivered, payouts.LinkDeliveryPending, payouts.LinkDeliveryFailed,
	payouts.LinkSent, payouts.LinkClaimed, payouts.LinkCanceled}

// payoutLinks lists payout links, newest first, found by payee (name, email or phone) or memo
// and narrowed by status: support's way to find the link a payee calls about.
func (h *Handlers) payoutLinks(c *fiber.Ctx) error {
	filter := payouts.PayoutLinkFilter{Search: strings.TrimSpace(c.Query("q")), Status: payouts.PayoutLinkStatus(c.Query("status"))}
	var problem string
	if filter.Status != "" && !filter.Status.Valid() {
		problem, filter.Status = "No status is called “"+string(filter.Status)+"”: every status is shown.", ""
	}
	page := pageOf(c, linksPerPage)
	list, note, err := h.findPayoutLinks(c.UserContext(), page, filter)
	if err != nil {
		return err
	}
	if problem != "" {
		note = strings.TrimSpace(problem + " " + note)
	}
	ids := make([]*string, 0, 2*len(list.Data))
	for _, l := range list.Data {
		ids = append(ids, l.UserID, l.ClaimedUserID)
	}
	people, err := h.peopleOf(c.UserContext(), ids...)
	if err != nil {
		return err
	}
	h.maskClaimURLs(c, list.Data)
	p := pages.PayoutLinksProps{Links: list.Data, People: people, Search: filter.Search, Status: string(filter.Status),
		Statuses: options("Any status", linkStatuses, pages.LinkStatusName), CanCreate: h.can(c, web.PermLinksWrite),
		Filtered: filter.Search != "" || filter.Status != "" || page.StartingAfter != "" || page.EndingBefore != ""}
	p.Notes = notesOf(note)
	if n := len(list.Data); n > 0 && note == "" {
		query := url.Values{"q": {filter.Search}, "status": {string(filter.Status)}}
		p.Pages = pageLinks("/payout-links", query, page, list.Data[0].ID, list.Data[n-1].ID, list.HasMore, "#payout-links-table")
	}
	view := h.web.View(c)
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Payout links", Content: pages.PayoutLinks(view, p), Fragment: pages.PayoutLinksTable(view, p)})
}

// payeeFields are the form fields of a link's payee (pages.PayeeFields).
var payeeFields = []string{"payee.first_name", "payee.last_name", "payee.email", "payee.country_code", "payee.phone_number"}

// payeeOf reads a link's payee from its form fields, trimmed.
func payeeOf(form components.Form) payouts.Payee {
	v := func(name string) string { return strings.TrimSpace(form.Value(name)) }
	return payouts.Payee{FirstName: v("payee.first_name"), LastName: v("payee.last_name"), Email: v("payee.email"),
		CountryCode: v("payee.country_code"), PhoneNumber: v("payee.phone_number")}
}

// Form field names are the API's field paths, so the service's problems land on the inputs.
var payoutLinkFields = slices.Concat([]string{"amount", "user", "user_id"}, payeeFields, []string{"delivery.method",
	"delivery.message", "memo", "tax_exempt", "force_collect_compliance_information", "payout_fee_party", "metadata",
	"idempotency_key"}, stepFields("additional_steps"))

// newPayoutLink shows the form to issue a payout link, for a user chosen by name when ?user=
// names one (the user's page links here).
func (h *Handlers) newPayoutLink(c *fiber.Ctx) error {
	form := components.Form{Values: map[string]string{"delivery.method": string(payouts.DeliveryLink), "payee.country_code": "1"}}
	if err := h.payeeFromPage(c, &form); err != nil {
		return err
	}
	return h.renderNewPayoutLink(c, fiber.StatusOK, form)
}

func (h *Handlers) renderNewPayoutLink(c *fiber.Ctx, status int, form components.Form) error {
	p := pages.PayoutLinkNewProps{Form: form, IdempotencyKey: uuid.NewString(), Steps: stepChoices(payouts.StepPayout),
		Payee: payeePicker(form, "field-user", "Pay one of your users", "Type a name, email or phone and choose; leave empty to pay someone new.")}
	offered, err := h.offers(c.UserContext(), payouts.ExtPreflight)
	if err != nil {
		return err
	}
	if !offered {
		p.ChecksNote = notOffered("Checking the link and its payee's claim before it is issued")
	}
	if p.OwesW9, err = h.chosenOwesW9(c.UserContext(), form); err != nil {
		return err
	}
	return h.web.Render(c, status, web.Page{Title: "New payout link", Content: pages.PayoutLinkNew(h.web.View(c), p)})
}

// createPayoutLink issues a payout link: the app's money is reserved until the payee claims it.
func (h *Handlers) createPayoutLink(c *fiber.Ctx) error {
	form := formOf(c, payoutLinkFields...)
	amount, _ := amountOf(&form, "amount")
	userID, err := h.choosePayee(c.UserContext(), &form)
	if err != nil {
		return err
	}
	v := func(name string) string { return strings.TrimSpace(form.Value(name)) }
	req := payouts.CreatePayoutLinkRequest{Amount: int64(amount), UserID: userID, Memo: v("memo"),
		TaxExempt: form.Value("tax_exempt") == "true", ForceCollectComplianceInfo: form.Value("force_collect_compliance_information") == "true",
		PayoutFeeParty: payouts.FeeParty(form.Value("payout_fee_party")), IdempotencyKey: idempotencyKeyOf(form),
		Delivery:        &payouts.Delivery{Method: payouts.DeliveryMethod(form.Value("delivery.method")), Message: v("delivery.message")},
		AdditionalSteps: stepsOf(form, "additional_steps")}
	if payee := payeeOf(form); payee.FirstName != "" ||
		payee.LastName != "" || payee.Email != "" || payee.PhoneNumber != "" {
		req.Payee = &payee
	}
	metadataOf(&form, &req.Metadata)
	if problemsFound(&form, req.Validate) {
		return h.renderNewPayoutLink(c, fiber.StatusUnprocessableEntity, form)
	}
	if !req.NamesPayee() && !h.holdsBearerLinks(c) {
		form.Message = "Your role may not issue a payout link that names nobody, which whoever opens it first can claim: " +
			"choose a user, or give the payee's phone or email."
		return h.renderNewPayoutLink(c, fiber.StatusForbidden, form)
	}
	// What the service would refuse, of the link or of its payee's claim (a W-9 the claim's
	// payout would need), goes to the form, as the service names it; the link is not issued.
	pf, err := h.preflight(c.UserContext(), func(ctx context.Context) (*payouts.Preflight, error) {
		return h.payouts.PreflightPayoutLink(ctx, req)
	})
	if err != nil {
		return err
	}
	if preflightFailed(pf, &form) {
		return h.renderNewPayoutLink(c, fiber.StatusUnprocessableEntity, form)
	}
	payeeKey, err := h.linkPayeeKey(c.UserContext(), req)
	if err != nil {
		return err
	}
	adm, held, err := h.holdByPolicy(c, heldRequest{kind: kindPayoutLink, amount: amount, key: &req.IdempotencyKey,
		userID: req.UserID, payee: req.Payee, payeeKey: payeeKey, method: pages.LinkMethod(req.Delivery.Method),
		request: &req})
	if held || err != nil {
		return err
	}
	l, err := h.payouts.CreatePayoutLink(c.UserContext(), req)
	h.settle(c.UserContext(), adm, idOf(l, func(l *payouts.PayoutLink) string { return l.ID }), err)
	if formFailed(err, &form) {
		return h.renderNewPayoutLink(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	h.audit(c, "payout_link.create", "payout_link", l.ID, l.Amount.String()+" for "+pages.PayeeName(l.Payee))
	web.Flash(c, web.FlashSuccess, "Issued a payout link of "+l.Amount.String()+".")
	return web.Redirect(c, paths.PayoutLink(l.ID))
}

// linkPayeeKey is who the approval policy counts a payout link's money to: the user it is issued
// to; else the user whose phone, or else whose email, it names, since only the owner of that
// contact claims it; else the contact itself (dashstore.PayeeContactKey). Finding the user takes
// the service's user search (the user-filters extension); without it, the contact stands until
// the link is claimed, and then the service's record counts it to its claimer.
func (h *Handlers) linkPayeeKey(ctx context.Context, req payouts.CreatePayoutLinkRequest) (string, error) {
	if req.UserID != "" || req.Payee == nil {
		return req.UserID, nil
	}
	p := req.Payee
	contact := dashstore.PayeeContactKey(p.Email, p.CountryCode, p.PhoneNumber)
	if offered, err := h.offers(ctx, payouts.ExtUserFilters); err != nil || !offered {
		return contact, err
	}
	for _, c := range []struct{ key, search string }{
		{dashstore.PayeeContactKey("", p.CountryCode, p.PhoneNumber), p.PhoneNumber},
		{dashstore.PayeeContactKey(p.Email, "", ""), dashstore.NormalizeEmail(p.Email)},
	} {
		if c.key == "" {
			continue
		}
		list, err := h.payouts.ListUsers(ctx, payouts.Page{Limit: payouts.MaxLimit}, payouts.UserFilter{Search: strings.TrimSpace(c.search)})
		if err != nil {
			return "", err
		}
		for _, u := range list.Data {
			if dashstore.PayeeContactKey("", u.PhoneNumber.CountryCode, u.PhoneNumber.PhoneNumber) == c.key ||
				dashstore.PayeeContactKey(u.Email, "", "") == c.key {
				return u.ID, nil
			}
		}
	}
	return contact, nil
}

// metadataOf reads the optional metadata field: JSON, as the API stores it. A problem goes on
// the field.
func metadataOf(form *components.Form, m *payouts.Metadata) {
	s := strings.TrimSpace(form.Value("metadata"))
	if s == "" {
		return
	}
	// The service's rule, checked before sending: the client cannot send metadata that is not JSON.
	if problem := payouts.ValidateMetadata(payouts.Metadata(s)); problem != "" {
		addProblem(form, "metadata", problem+`, like {"order": "A-17"}`)
		return
	}
	*m = payouts.Metadata(s)
}

// payoutLink shows a payout link: its link to copy, its timeline, an inert preview of the claim
// page (operators never act as the payee), and the form to cancel it.
func (h *Handlers) payoutLink(c *fiber.Ctx) error {
	return h.renderPayoutLink(c, fiber.StatusOK, linkForms{})
}

// linkForms are the forms of a link's page as last sent; a form not sent is empty (the
// correction's is then prefilled with the link's payee).
type linkForms struct {
	cancel, correct components.Form
}

func (h *Handlers) renderPayoutLink(c *fiber.Ctx, status int, forms linkForms) error {
	l, err := h.payouts.GetPayoutLink(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	app, err := h.payouts.GetApp(c.UserContext(), h.appID)
	if err != nil {
		return err
	}
	people, err := h.peopleOf(c.UserContext(), l.UserID, l.ClaimedUserID)
	if err != nil {
		return err
	}
	p := pages.PayoutLinkProps{Link: *l, LinkMasked: h.maskClaimURL(c, l), People: people, CanCancel: h.can(c, web.PermLinksCancel), Cancel: forms.cancel,
		CanReadFlows: h.can(c, web.PermFlowsRead), CanReadTransfers: h.can(c, web.PermTransfersRead), AppName: app.Name}
	if l.Status == payouts.LinkDeliveryFailed && h.can(c, web.PermLinksWrite) {
		if p.CanResend, err = h.offers(c.UserContext(), payouts.ExtMessages); err != nil {
			return err
		}
	}
	if correctable(l) && h.can(c, web.PermLinksWrite) {
		p.Correct = &pages.LinkCorrection{Form: forms.correct}
		if p.Correct.InPlace, err = h.offers(c.UserContext(), payouts.ExtMessages); err != nil {
			return err
		}
		if p.Correct.Form.Values == nil {
			p.Correct.Form.Values = map[string]string{"payee.first_name": l.Payee.FirstName, "payee.last_name": l.Payee.LastName,
				"payee.email": l.Payee.Email, "payee.country_code": l.Payee.CountryCode, "payee.phone_number": l.Payee.PhoneNumber}
		}
	}
	if l.Status == payouts.LinkCanceled {
		if p.Cancellation, err = h.cancellationOf(c.UserContext(), *l); err != nil {
			return err
		}
	}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Payout link", Content: pages.PayoutLinkDetail(view, p), Fragment: pages.PayoutLinkCancel(view, p)})
}

// cancelPayoutLink cancels an unclaimed link; the reserved money returns to the app. The reason
// is required: it is the audit log's record of why a payee's money was taken back.
func (h *Handlers) cancelPayoutLink(c *fiber.Ctx) error {
	form := formOf(c, "reason")
	reason := strings.TrimSpace(form.Value("reason"))
	switch {
	case reason == "":
		form.Errors = map[string]string{"reason": "say why the link is canceled"}
	case len(reason) > 500:
		form.Errors = map[string]string{"reason": "use at most 500 characters"}
	}
	if form.Errors != nil {
		return h.renderPayoutLink(c, fiber.StatusUnprocessableEntity, linkForms{cancel: form})
	}
	l, err := h.payouts.CancelPayoutLink(c.UserContext(), c.Params("id"))
	if formFailed(err, &form) {
		return h.renderPayoutLink(c, fiber.StatusUnprocessableEntity, linkForms{cancel: form})
	}
	if err != nil {
		return err
	}
	h.audit(c, "payout_link.cancel", "payout_link", l.ID, cancelDetailPrefix(*l)+reason)
	web.Flash(c, web.FlashSuccess, "Canceled the payout link; "+l.Amount.String()+" is back in the app's wallet.")
	return web.Redirect(c, paths.PayoutLink(l.ID))
}

// resendPayoutLink sends an open sms or email link to its payee again, audited, and goes back to
// the payee's page (the link's when it names no user).
func (h *Handlers) resendPayoutLink(c *fiber.Ctx) error {
	l, err := h.payouts.ResendPayoutLink(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	h.audit(c, "payout_link.resend", "payout_link", l.ID, "sent "+l.Amount.String()+" for "+pages.PayeeName(l.Payee)+" again by "+string(l.Delivery.Method))
	web.Flash(c, web.FlashSuccess, "The payout link is on its way to "+pages.PayeeName(l.Payee)+" again.")
	if l.UserID != nil {
		return web.Redirect(c, paths.User(*l.UserID))
	}
	return web.Redirect(c, paths.PayoutLink(l.ID))
}

// correctable reports whether a link may go to a corrected payee: sent by email or sms and not
// delivered to anyone yet, and not issued to a user, whose own phone proves the claim. The
// service decides for good (a payee who verified on the link's page binds it).
func correctable(l *payouts.PayoutLink) bool {
	return (l.Status == payouts.LinkDeliveryFailed || l.Status == payouts.LinkDeliveryPending) && l.UserID == nil &&
		(l.Delivery.Method == payouts.DeliveryEmail || l.Delivery.Method == payouts.DeliverySMS)
}

// correctPayoutLink sends a link whose message has not reached anyone to a corrected payee,
// audited with both contacts masked: in place where the service corrects links (extension
// messages); on the public API by canceling the link and issuing a new one of the same amount
// and metadata (the public link carries no memo) to the corrected payee, as the page says.
func (h *Handlers) correctPayoutLink(c *fiber.Ctx) error {
	ctx := c.UserContext()
	form := formOf(c, payeeFields...)
	req := payouts.CorrectPayoutLinkContactRequest{Payee: payeeOf(form)}
	if problemsFound(&form, req.Validate) {
		return h.renderPayoutLink(c, fiber.StatusUnprocessableEntity, linkForms{correct: form})
	}
	old, err := h.payouts.GetPayoutLink(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	inPlace, err := h.offers(ctx, payouts.ExtMessages)
	if err != nil {
		return err
	}
	var l *payouts.PayoutLink
	if inPlace {
		l, err = h.payouts.CorrectPayoutLinkContact(ctx, old.ID, req)
	} else {
		l, err = h.reissuePayoutLink(c, old, req.Payee)
	}
	if errors.Is(err, errCanceledOnly) {
		return web.Redirect(c, paths.PayoutLink(old.ID))
	}
	if formFailed(err, &form) {
		return h.renderPayoutLink(c, fiber.StatusUnprocessableEntity, linkForms{correct: form})
	}
	if err != nil {
		return err
	}
	detail := l.Amount.String() + " for " + maskedContact(l) + " instead of " + maskedContact(old)
	if !inPlace {
		detail += ", as the new link " + l.ID + " (this one canceled)"
	}
	h.audit(c, "payout_link.correct", "payout_link", old.ID, detail)
	web.Flash(c, web.FlashSuccess, correctedFlash(inPlace, l))
	return web.Redirect(c, paths.PayoutLink(l.ID))
}

func correctedFlash(inPlace bool, l *payouts.PayoutLink) string {
	if inPlace {
		return "The payout link is on its way to " + maskedContact(l) + "."
	}
	return "Canceled the payout link and issued a new one of " + l.Amount.String() + " to " + maskedContact(l) + "."
}

// reissuePayoutLink cancels old and issues a new link like it to payee, for the public API,
// which cannot change a link's payee. It cancels first, so that the money is never reserved
// twice and a payee who claims old meanwhile stops it; the new link's idempotency key is old's
// id's, so that a retry issues no second link.
func (h *Handlers) reissuePayoutLink(c *fiber.Ctx, old *payouts.PayoutLink, payee payouts.Payee) (*payouts.PayoutLink, error) {
	ctx := c.UserContext()
	if !correctable(old) {
		return nil, payouts.Errorf(payouts.EInvalidTransaction, "This payout link is %s: its payee cannot be corrected; cancel it and issue a new one.", old.Status)
	}
	if !h.can(c, web.PermLinksCancel) {
		return nil, payouts.Errorf(payouts.EForbidden, "Your role may not cancel payout links, which issuing the link again takes here.")
	}
	req := payouts.CreatePayoutLinkRequest{Amount: int64(old.Amount), Payee: &payee, Memo: old.Memo, Metadata: old.Metadata,
		TaxExempt: old.TaxExempt, PayoutFeeParty: old.PayoutFeeParty, Delivery: &payouts.Delivery{Method: old.Delivery.Method, Message: old.Delivery.Message},
		IdempotencyKey: uuid.NewSHA1(reissueSpace, []byte(old.ID)).String()}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	canceled, err := h.payouts.CancelPayoutLink(ctx, old.ID)
	if err != nil {
		return nil, err
	}
	h.audit(c, "payout_link.cancel", "payout_link", old.ID, cancelDetailPrefix(*canceled)+"issued again to "+maskedContact(&payouts.PayoutLink{Payee: payee, Delivery: old.Delivery}))
	l, err := h.payouts.CreatePayoutLink(ctx, req)
	if err != nil {
		h.log.Warn("payout link canceled but not issued again", "link", old.ID, "err", err)
		why := "the service did not answer."
		if e := (*payouts.Error)(nil); errors.As(err, &e) && web.StatusOf(err) < 500 {
			why = e.Message
		}
		web.Flash(c, web.FlashError, "Canceled this payout link ("+old.Amount.String()+" is back in the app's wallet), but the new link was not issued: "+
			why+" Issue it from New payout link.")
		return nil, errCanceledOnly
	}
	h.audit(c, "payout_link.create", "payout_link", l.ID, l.Amount.String()+" for "+pages.PayeeName(l.Payee)+", issued again for "+old.ID)
	return l, nil
}

// errCanceledOnly is reissuePayoutLink's answer when it canceled the link but could not issue
// the new one: what happened is flashed, and the canceled link's page says the rest.
var errCanceledOnly = errors.New("payout link canceled, not issued again")

// reissueSpace names the idempotency keys of links issued again for a canceled one.
var reissueSpace = uuid.MustParse("6f1c1f0e-3c55-4d53-9a0b-6a2f3f0c9e1d")

// maskedContact is the contact a link goes to, masked as the payee pages mask it, for the audit
// log and the flash: what tells two contacts apart without spelling either out.
func maskedContact(l *payouts.PayoutLink) string {
	if l.Delivery.Method == payouts.DeliverySMS {
		return "sms " + hosted.MaskPhone(payouts.Phone{CountryCode: l.Payee.CountryCode, PhoneNumber: l.Payee.PhoneNumber})
	}
	return "email " + hosted.MaskEmail(l.Payee.Email)
}

// cancelDetailPrefix begins the audit detail of a link's cancellation; the operator's reason
// follows it, and the link's page reads the reason back from there.
func cancelDetailPrefix(l payouts.PayoutLink) string {
	return "canceled " + l.Amount.String() + " for " + pages.PayeeName(l.Payee) + ": "
}

// cancellationOf says who canceled a link, when and why, from the audit log, where the
// dashboard recorded it. A link canceled through the API has no entry: nil.
func (h *Handlers) cancellationOf(ctx context.Context, l payouts.PayoutLink) (*pages.LinkCancellation, error) {
	entries, _, err := h.store.AuditLog(ctx, dashstore.AuditFilter{ObjectType: "payout_link", ObjectID: l.ID, Limit: 100})
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Action != "payout_link.cancel" {
			continue
		}
		who := e.OperatorEmail
		if op, err := h.store.Operator(ctx, e.OperatorID); err == nil && op.Name != "" {
			who = op.Name + " (" + e.OperatorEmail + ")"
		}
		reason, ok := strings.CutPrefix(e.Detail, cancelDetailPrefix(l))
		if !ok {
			reason = e.Detail // written before this format, or by another version: show it whole
		}
		return &pages.LinkCancellation{By: who, At: e.Created, Reason: reason}, nil
	}
	return nil, nil
}

// maskClaimURL masks the claim URL of a link that names nobody, which whoever opens it first
// claims, unless the operator's role may hold such links. It reports
// whether it did. Every page, list and fragment that holds a link passes it through here.
func (h *Handlers) maskClaimURL(c *fiber.Ctx, l *payouts.PayoutLink) bool {
	if l.NamesPayee() || h.holdsBearerLinks(c) {
		return false
	}
	l.Link = maskURL(l.Link)
	return true
}

// holdsBearerLinks reports whether the operator's role is one the policy lets issue payout links
// that name nobody and see their claim URLs (--bearer-link-roles).
func (h *Handlers) holdsBearerLinks(c *fiber.Ctx) bool {
	return slices.Contains(h.policy.BearerLinks, h.operatorOf(c).Role)
}

// maskClaimURLs is maskClaimURL on each link of a list.
func (h *Handlers) maskClaimURLs(c *fiber.Ctx, links []payouts.PayoutLink) {
	for i := range links {
		h.maskClaimURL(c, &links[i])
	}
}

// maskURL keeps of a URL its scheme and host and the last 4 characters of its path: enough to
// tell two links apart on a call, not enough to open one. The tail comes from the path (the
// link's id, which the page shows anyway), never from the query, where a link that names nobody
// carries its claim key: no character of the key is shown.
func maskURL(raw string) string {
	withoutQuery, _, _ := strings.Cut(raw, "?")
	withoutQuery, _, _ = strings.Cut(withoutQuery, "#")
	origin, rest := "", withoutQuery
	if u, err := url.Parse(withoutQuery); err == nil && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
		rest = strings.TrimPrefix(withoutQuery, origin)
	}
	if r := []rune(rest); len(r) > 4 {
		rest = string(r[len(r)-4:])
	}
	return origin + "/…" + rest
}
