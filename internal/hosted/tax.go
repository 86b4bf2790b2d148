package hosted

import (
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	views "github.com/disburse/disburse/views/hosted"
)

// taxFormsPage is the tax-forms step: the consent to electronic delivery, then the payee's
// forms, each downloaded by a form post that carries the session.
func (h *Handler) taxFormsPage(c *fiber.Ctx, p *payee, a answer) (templ.Component, error) {
	forms, consent, err := h.svc.PayeeTaxForms(c.UserContext(), p.flow.ID, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	return views.TaxFormsPage(h.view(p), views.TaxForms{Form: a.form, Consented: consent.Stands(),
		Withdrawn: consent.Withdrawn, Forms: forms}), nil
}

// taxForms is POST /f/{id}/tax-forms: the payee consents, or, consented, is done with the step.
func (h *Handler) taxForms(c *fiber.Ctx, p *payee) error {
	if c.FormValue("done") == "true" {
		return h.finish(c, p, payouts.StepTaxForms)
	}
	if err := h.svc.ConsentOnFlow(c.UserContext(), p.flow.ID, p.sess.UserID, c.FormValue("consent") == "true"); err != nil {
		return h.retry(c, p, err)
	}
	return h.next(c, p)
}

// withdrawTaxConsent is POST /f/{id}/tax-forms/withdraw: the payee withdraws their consent and
// is back at the step, which asks for it again.
func (h *Handler) withdrawTaxConsent(c *fiber.Ctx, p *payee) error {
	if err := h.svc.WithdrawConsentOnFlow(c.UserContext(), p.flow.ID, p.sess.UserID); err != nil {
		return h.retry(c, p, err)
	}
	return h.next(c, p)
}

// taxFormPDF is POST /f/{id}/tax-forms/pdf: the Copy B of one of the payee's forms.
func (h *Handler) taxFormPDF(c *fiber.Ctx, p *payee) error {
	name, pdf, err := h.svc.PayeeTaxFormPDF(c.UserContext(), p.flow.ID, p.sess.UserID, c.FormValue("form_id"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/pdf")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(pdf)
}
