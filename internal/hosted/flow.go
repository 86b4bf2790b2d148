package hosted

import (
	"net/url"
	"slices"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	views "github.com/disburse/disburse/views/hosted"
)

// payee is a request on a flow: the flow with what its pages show, and the payee session the
// request carried (zero before the payee identified).
type payee struct {
	flow *service.HostedFlow
	sess service.PayeeSession
}

func (p *payee) step() string { return service.NextStep(&p.flow.Flow) }

// The stages of a payee on a flow before and into its steps, each with its page and its posts.
const (
	stageIdentify = iota // no session: the payee asks for a code
	stageCode            // a code went out: the payee enters it
	stageDetails         // the code proved the link's email, which nobody holds: the payee says who they are
	stageSteps           // a verified payee works through the flow's steps
)

// stage is where the request's session puts the payee.
func (p *payee) stage() int {
	switch {
	case p.sess.UserID == "" && !p.sess.ByEmail:
		return stageIdentify
	case !p.sess.Verified:
		return stageCode
	case p.sess.UserID == "":
		return stageDetails
	}
	return stageSteps
}

// canceled reports whether the payout link the flow pays out was canceled.
func (p *payee) canceled() bool {
	return p.flow.Link != nil && p.flow.Link.Status == payouts.LinkCanceled
}

// closed reports whether the flow has nothing left for a payee: every step is done, or its
// payout link was canceled.
func (p *payee) closed() bool { return p.step() == "" || p.canceled() }

// answer is what a page shows besides the flow: the status, and after a failed post the form
// as sent with its problems.
type answer struct {
	status int
	form   components.Form // the step's own form
	method components.Form // the form that adds a payout method
}

var ok = answer{status: fiber.StatusOK}

// failed is the answer re-showing a form whose post failed with err; false for errors that are
// no form's business.
func failed(c *fiber.Ctx, err error) (answer, bool) {
	f, isForm := formError(err, formValues(c))
	return answer{status: fiber.StatusUnprocessableEntity, form: f}, isForm
}

// retry shows the step again with the problems of err next to its fields; errors that are no
// form's business become error pages.
func (h *Handler) retry(c *fiber.Ctx, p *payee, err error) error {
	a, isForm := failed(c, err)
	if !isForm {
		return err
	}
	return h.reshow(c, p, a)
}

// reshow shows the flow again after a failed post, read afresh: the post may have changed it
// before failing (a payout refused after its link was claimed).
func (h *Handler) reshow(c *fiber.Ctx, p *payee, a answer) error {
	hf, err := h.svc.OpenHostedFlow(c.UserContext(), p.flow.ID)
	if err != nil {
		return err
	}
	p.flow = hf
	return h.show(c, p, a)
}

// view is what every step page shows of the flow, with a fresh session for its forms.
func (h *Handler) view(p *payee) views.Flow {
	f := views.Flow{ID: p.flow.ID, Key: p.flow.Key, AppName: p.flow.AppName,
		Steps: views.NewSteps(p.flow.Steps, p.flow.CompletedSteps, p.step())}
	if p.stage() != stageIdentify {
		f.Session = h.svc.SignPayeeSession(p.sess)
	}
	if l := p.flow.Link; l != nil {
		f.Amount, f.Memo = l.Amount, l.Memo
	}
	return f
}

// signInView is the flow as the pages before the steps show it: without the progress through
// steps, which have not begun.
func (h *Handler) signInView(p *payee) views.Flow {
	f := h.view(p)
	f.Steps = nil
	return f
}

// next sends the browser to the flow's page, which shows the step now due, with the payee's
// session as a short-lived handoff in its URL (service.PayeeHandoffLifetime): the page's forms
// carry a session of their own.
func (h *Handler) next(c *fiber.Ctx, p *payee, query ...string) error {
	f := views.Flow{ID: p.flow.ID, Key: p.flow.Key}
	if p.stage() != stageIdentify {
		f.Handoff = h.svc.SignPayeeHandoff(p.sess)
	}
	return c.Redirect(f.URL(query...), fiber.StatusSeeOther)
}

// finish completes a step and moves on to the next.
func (h *Handler) finish(c *fiber.Ctx, p *payee, step string) error {
	f, err := h.svc.CompleteFlowStep(c.UserContext(), p.flow.ID, p.sess.UserID, step)
	if err != nil {
		return err
	}
	p.flow.FlowRecord = *f
	return h.next(c, p)
}

// openPayee reads the flow of the request and the session it carries, if any: a post's in its
// body, a page's as the handoff in its URL (no other token is taken from a URL, so none that
// lasts is ever written into one). A session that does not check out is refused; so is one of a
// user the flow does not belong to. A session of the flow's email code names no user: the code
// decides whose the flow is.
func (h *Handler) openPayee(c *fiber.Ctx) (*payee, error) {
	hf, err := h.svc.OpenHostedFlow(c.UserContext(), c.Params("id"))
	if err != nil {
		return nil, err
	}
	p := &payee{flow: hf}
	open, token := h.svc.OpenPayeeHandoff, c.Query("s")
	if c.Method() == fiber.MethodPost {
		open, token = h.svc.OpenPayeeSession, string(c.Request().PostArgs().Peek("s"))
	}
	if token == "" {
		// Without a session, only the claim key opens the flow of a link that names nobody; a
		// session is only ever issued to a request that had it.
		return p, h.svc.CheckClaimKey(hf, c.FormValue("k"))
	}
	if p.sess, err = open(token, hf.ID); err != nil {
		return nil, err
	}
	if hf.UserID != nil && !p.sess.ByEmail && *hf.UserID != p.sess.UserID {
		return nil, payouts.Errorf(payouts.EUnauthorized, "This page belongs to someone else.")
	}
	return p, nil
}

// forPayee wraps a post of a payee on a flow: it needs a session at the stage said, and when
// steps are named, one of them must be the step due; otherwise the browser is sent to the page
// of what is due.
func (h *Handler) forPayee(stage int, fn func(*fiber.Ctx, *payee) error, steps ...string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := h.openPayee(c)
		if err != nil {
			return err
		}
		if p.stage() == stageIdentify {
			return payouts.Errorf(payouts.EUnauthorized, "This page's session is missing. Start again from your link.")
		}
		if p.stage() != stage || (len(steps) > 0 && !slices.Contains(steps, p.step())) {
			return h.next(c, p)
		}
		return fn(c, p)
	}
}

// flow is GET /f/{id}: the page of whatever is due, from identifying the payee to the end.
func (h *Handler) flow(c *fiber.Ctx) error {
	p, err := h.openPayee(c)
	if err != nil {
		return err
	}
	return h.show(c, p, ok)
}

// showChoice is POST /f/{id}/show: a button of choices (a tax form, a payout platform) sends the
// browser to the page with that choice made.
func (h *Handler) showChoice(c *fiber.Ctx, p *payee) error {
	var query []string
	for _, name := range []string{"form", "platform"} {
		if v := string(c.Request().PostArgs().Peek(name)); v != "" {
			query = append(query, name, v)
		}
	}
	return h.next(c, p, query...)
}

// restart is GET on a flow's form address, such as a reload of a form answered with its
// problems: the flow's page, from the start, since a URL like this carries no session.
func (h *Handler) restart(c *fiber.Ctx) error {
	return c.Redirect(views.Flow{ID: url.PathEscape(c.Params("id")), Key: c.Query("k")}.URL(), fiber.StatusSeeOther)
}

// show renders the page of what is due on the flow.
func (h *Handler) show(c *fiber.Ctx, p *payee, a answer) error {
	title := payouts.StepLabel(p.step(), payouts.ForPayee)
	var page templ.Component
	var err error
	switch step := p.step(); {
	case p.canceled():
		title, page = "Payout canceled", views.PayoutLinkPage(linkView(p.flow))
	case step == "":
		title = "All done"
		page, err = h.donePage(c, p)
	case p.stage() == stageIdentify:
		title, page = "Confirm it’s you", views.IdentifyPage(h.signInView(p), identifyView(a.form, p.flow.Link))
	case p.stage() == stageCode:
		title = "Enter your code"
		page, err = h.verifyPage(c, p, a)
	case p.stage() == stageDetails:
		title, page = "Tell us who you are", views.DetailsPage(h.signInView(p), detailsView(a.form, p.flow.Link))
	case step == payouts.StepCompliance:
		page, err = h.compliancePage(c, p, a)
	case step == payouts.StepIDVerification:
		page = views.IDVerificationPage(h.view(p), a.form)
	case step == payouts.StepBackgroundCheck:
		page = views.BackgroundCheckPage(h.view(p), a.form)
	case step == payouts.StepManagePayments, step == payouts.StepManagePayouts:
		page, err = h.payoutMethodsPage(c, p, a)
	case step == payouts.StepPayout:
		page, err = h.payoutPage(c, p, a)
	case step == payouts.StepTaxForms:
		page, err = h.taxFormsPage(c, p, a)
	case step == payouts.StepRedirect:
		page, err = h.redirectPage(c, p)
	default:
		err = payouts.Errorf(payouts.EInternal, "flow step %q has no page", step)
	}
	if err != nil {
		return err
	}
	return h.render(c, a.status, title, p.flow.AppName, page)
}

// donePage is a finished flow: with the payee's latest payout when the flow paid one and the
// request carries the payee's session, without anything personal otherwise.
func (h *Handler) donePage(c *fiber.Ctx, p *payee) (templ.Component, error) {
	signedIn := p.stage() == stageSteps
	d := views.Done{SignedOut: !signedIn}
	if signedIn && slices.Contains(p.flow.Steps, payouts.StepPayout) {
		list, err := h.svc.ListTransfers(c.UserContext(), p.flow.AppID, payouts.Page{Limit: 1},
			payouts.TransferFilter{UserID: p.sess.UserID, Type: payouts.TransferPayout})
		if err != nil {
			return nil, err
		}
		if len(list.Data) > 0 {
			d.Payout = &list.Data[0]
		}
	}
	return views.DonePage(h.view(p), d), nil
}

// redirectPage is the last step. Its form leaves the iframe for the app's redirect URL, so the
// page's policy lets forms go to that origin too.
func (h *Handler) redirectPage(c *fiber.Ctx, p *payee) (templ.Component, error) {
	u, err := url.Parse(p.flow.RedirectURL)
	if err != nil || u.Host == "" {
		return nil, payouts.Errorf(payouts.EInternal, "flow %s has no usable redirect URL", p.flow.ID)
	}
	h.secure(c, u.Scheme+"://"+u.Host)
	return views.RedirectPage(h.view(p), views.Redirect{URL: p.flow.RedirectURL, Host: u.Host}), nil
}

// redirect is POST /f/{id}/redirect: the last step, done, sends the payee to the app.
func (h *Handler) redirect(c *fiber.Ctx, p *payee) error {
	if _, err := h.svc.CompleteFlowStep(c.UserContext(), p.flow.ID, p.sess.UserID, payouts.StepRedirect); err != nil {
		return err
	}
	return c.Redirect(p.flow.RedirectURL, fiber.StatusSeeOther)
}
