package handlers

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

const flowsPerPage = 25

// A step picker is one checkbox per step, named FIELD.STEP, and the redirect step's URL in
// redirect_url; FIELD is the API's field (steps, additional_steps), where the service puts its
// problems with the steps.

// stepFields are the form fields of a step picker.
func stepFields(field string) []string {
	out := []string{"redirect_url"}
	for _, s := range payouts.StepNames {
		out = append(out, field+"."+s)
	}
	return out
}

// stepsOf reads the steps picked, in the order flows run them.
func stepsOf(form components.Form, field string) []payouts.Step {
	var out []payouts.Step
	for _, name := range payouts.StepNames {
		if form.Value(field+"."+name) != "true" {
			continue
		}
		st := payouts.Step{Name: name}
		if name == payouts.StepRedirect {
			st.RedirectURL = strings.TrimSpace(form.Value("redirect_url"))
		}
		out = append(out, st)
	}
	return out
}

// stepChoices are the steps a picker offers, leaving out those given.
func stepChoices(leaveOut ...string) []components.Option {
	var out []components.Option
	for _, s := range payouts.StepNames {
		if !slices.Contains(leaveOut, s) {
			out = append(out, components.Option{Value: s, Label: pages.StepName(s)})
		}
	}
	return out
}

// flows lists the hosted flows, newest first.
func (h *Handlers) flows(c *fiber.Ctx) error {
	page := pageOf(c, flowsPerPage)
	list, err := h.payouts.ListFlows(c.UserContext(), page, payouts.FlowFilter{})
	if err != nil {
		return err
	}
	ids := make([]*string, len(list.Data))
	for i, f := range list.Data {
		ids[i] = f.UserID
	}
	people, err := h.peopleOf(c.UserContext(), ids...)
	if err != nil {
		return err
	}
	p := pages.FlowsProps{Flows: list.Data, People: people, CanCreate: h.can(c, web.PermFlowsWrite),
		Paged: page.StartingAfter != "" || page.EndingBefore != ""}
	if n := len(list.Data); n > 0 {
		p.Pages = pageLinks("/flows", nil, page, list.Data[0].ID, list.Data[n-1].ID, list.HasMore, "#flows-table")
	}
	view := h.web.View(c)
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Flows", Content: pages.Flows(view, p), Fragment: pages.FlowsTable(view, p)})
}

var flowFields = append([]string{"user", "user_id", "metadata"}, stepFields("steps")...)

// newFlow shows the form to create a flow, for a user chosen by name when ?user= names one.
func (h *Handlers) newFlow(c *fiber.Ctx) error {
	form := components.Form{Values: map[string]string{}}
	if err := h.payeeFromPage(c, &form); err != nil {
		return err
	}
	return h.renderNewFlow(c, fiber.StatusOK, form)
}

func (h *Handlers) renderNewFlow(c *fiber.Ctx, status int, form components.Form) error {
	p := pages.FlowNewProps{Form: form, Steps: stepChoices(),
		Payee: payeePicker(form, "field-user", "For one of your users", "Type a name, email or phone and choose; leave empty and the payee identifies themselves by phone.")}
	var err error
	if p.OwesW9, err = h.chosenOwesW9(c.UserContext(), form); err != nil {
		return err
	}
	return h.web.Render(c, status, web.Page{Title: "New flow", Content: pages.FlowNew(h.web.View(c), p)})
}

// createFlow makes a hosted flow of the steps picked and opens it.
func (h *Handlers) createFlow(c *fiber.Ctx) error {
	form := formOf(c, flowFields...)
	userID, err := h.choosePayee(c.UserContext(), &form)
	if err != nil {
		return err
	}
	req := payouts.CreateFlowRequest{Steps: stepsOf(form, "steps"), UserID: userID}
	metadataOf(&form, &req.Metadata)
	if problemsFound(&form, req.Validate) {
		return h.renderNewFlow(c, fiber.StatusUnprocessableEntity, form)
	}
	f, err := h.payouts.CreateFlow(c.UserContext(), req)
	if formFailed(err, &form) {
		return h.renderNewFlow(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	h.audit(c, "flow.create", "flow", f.ID, strings.Join(f.Steps, ", "))
	web.Flash(c, web.FlashSuccess, "Created the flow.")
	return web.Redirect(c, paths.Flow(f.ID))
}

// flow shows a flow: the hosted page in an iframe, as the payee sees it, and its progress.
func (h *Handlers) flow(c *fiber.Ctx) error {
	f, err := h.payouts.GetFlow(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	people, err := h.peopleOf(c.UserContext(), f.UserID)
	if err != nil {
		return err
	}
	p := pages.FlowDetailProps{Flow: *f, People: people}
	// A payout link's flow is where the link is claimed: its URL is the link's.
	if f.PayoutLinkID != nil {
		l, err := h.payouts.GetPayoutLink(c.UserContext(), *f.PayoutLinkID)
		if err != nil {
			return err
		}
		l.Link = f.Link
		p.LinkMasked = h.maskClaimURL(c, l)
		p.Flow.Link = l.Link
	} else if f.UserID == nil && !h.holdsBearerLinks(c) {
		// The public API does not say which link a flow is of (payout_link_id is ours): a flow
		// for no one may be a link that names nobody, whose URL pays whoever opens it.
		x, err := h.payouts.Extensions(c.UserContext())
		if err != nil {
			return err
		}
		if !x.Ours() {
			p.Flow.Link, p.LinkMasked = maskURL(f.Link), true
		}
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Flow", Content: pages.FlowDetail(h.web.View(c), p)})
}

// flowProgress is the flow's progress alone, which the flow page polls until every step is done.
func (h *Handlers) flowProgress(c *fiber.Ctx) error {
	f, err := h.payouts.GetFlow(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	progress := pages.FlowProgress(*f)
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Flow progress", Content: progress, Fragment: progress})
}
