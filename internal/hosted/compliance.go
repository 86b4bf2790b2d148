package hosted

import (
	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	views "github.com/disburse/disburse/views/hosted"
)

// compliancePage is the tax form step: a W-9, or a W-8BEN when the payee says they are not a US
// person. A fresh W-9 starts with the payee's names.
func (h *Handler) compliancePage(c *fiber.Ctx, p *payee, a answer) (templ.Component, error) {
	kind := c.FormValue("form")
	if kind != "w8ben" {
		kind = "w9"
	}
	if a.form.Values == nil {
		user, err := h.svc.GetUser(c.UserContext(), p.flow.AppID, p.sess.UserID)
		if err != nil {
			return nil, err
		}
		a.form = components.Form{Values: map[string]string{
			"w9.first_name": user.FirstName, "w9.last_name": user.LastName,
			"w8ben.name": user.Name(), "w8ben.signature.email": user.Email,
		}}
	}
	return views.CompliancePage(h.view(p), views.Compliance{Form: a.form, Kind: kind}), nil
}

// submitCompliance is POST /f/{id}/compliance.
func (h *Handler) submitCompliance(c *fiber.Ctx, p *payee) error {
	req, err := complianceRequest(c)
	if err == nil {
		err = h.svc.SubmitCompliance(c.UserContext(), p.flow.AppID, p.sess.UserID, req)
	}
	if err != nil {
		return h.retry(c, p, err)
	}
	return h.finish(c, p, payouts.StepCompliance)
}

// complianceRequest decodes the tax form posted: field names are the API's (w9.tin,
// w8ben.address.city, ...), so the service's field problems land on the right inputs. A treaty
// rate that is not a number is refused here, as the API's JSON decoding refuses it.
func complianceRequest(c *fiber.Ctx) (payouts.ComplianceRequest, error) {
	address := func(prefix string) payouts.Address {
		return payouts.Address{Line1: c.FormValue(prefix + ".line_1"), Line2: c.FormValue(prefix + ".line_2"),
			City: c.FormValue(prefix + ".city"), State: c.FormValue(prefix + ".state"),
			Country: c.FormValue(prefix + ".country"), Postcode: c.FormValue(prefix + ".postcode")}
	}
	if c.FormValue("form") == "w8ben" {
		rate, err := payouts.ParseTreatyRate(c.FormValue("w8ben.tax_treaty_rate"))
		return payouts.ComplianceRequest{W8BEN: &payouts.W8BEN{
			Name: c.FormValue("w8ben.name"), CitizenshipCountry: c.FormValue("w8ben.citizenship_country"),
			DateOfBirth: c.FormValue("w8ben.date_of_birth"), TIN: c.FormValue("w8ben.tin"),
			ForeignTaxID: c.FormValue("w8ben.foreign_tax_id"),
			Address:      address("w8ben.address"),
			Signature: payouts.Signature{Consent: c.FormValue("w8ben.signature.consent") == "true",
				Name: c.FormValue("w8ben.signature.name"), Email: c.FormValue("w8ben.signature.email")},
			TaxTreatyCountry: c.FormValue("w8ben.tax_treaty_country"), TaxTreatyCitation: c.FormValue("w8ben.tax_treaty_citation"),
			TaxTreatyRate: rate, TaxTreatyIncomeType: c.FormValue("w8ben.tax_treaty_income_type"),
			TaxTreatyExplanation: c.FormValue("w8ben.tax_treaty_explanation"),
		}}, err
	}
	return payouts.ComplianceRequest{W9: &payouts.W9{
		EntityType: payouts.EntityType(c.FormValue("w9.entity_type")), BusinessName: c.FormValue("w9.business_name"),
		FirstName: c.FormValue("w9.first_name"), LastName: c.FormValue("w9.last_name"),
		DateOfBirth: c.FormValue("w9.date_of_birth"), TIN: c.FormValue("w9.tin"), Address: address("w9.address"),
	}}, nil
}

// verifyIdentity is POST /f/{id}/id-verification: the sandbox identity check.
func (h *Handler) verifyIdentity(c *fiber.Ctx, p *payee) error {
	err := h.svc.VerifyIdentity(c.UserContext(), p.flow.AppID, p.sess.UserID, c.FormValue("ssn_last4"), c.FormValue("date_of_birth"))
	if err != nil {
		return h.retry(c, p, err)
	}
	return h.finish(c, p, payouts.StepIDVerification)
}

// backgroundCheck is POST /f/{id}/background-check: the payee's consent runs the sandbox check,
// which completes the step.
func (h *Handler) backgroundCheck(c *fiber.Ctx, p *payee) error {
	err := h.svc.ConsentToBackgroundCheck(c.UserContext(), p.flow.ID, p.sess.UserID, service.BackgroundCheckConsent{
		Consent: c.FormValue("consent") == "true", Name: c.FormValue("name")})
	if err != nil {
		return h.retry(c, p, err)
	}
	return h.next(c, p)
}
