package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// Form field names are the API's field paths (w9.address.line_1, ...), so the service's field
// problems land on the right inputs.
var (
	addressFields = []string{"line_1", "line_2", "city", "state", "country", "postcode"}
	w9Fields      = []string{"w9.entity_type", "w9.business_name", "w9.first_name", "w9.last_name", "w9.date_of_birth", "w9.tin"}
	w8benFields   = []string{"w8ben.name", "w8ben.citizenship_country", "w8ben.date_of_birth", "w8ben.tin", "w8ben.foreign_tax_id",
		"w8ben.signature.consent", "w8ben.signature.name", "w8ben.signature.email", "w8ben.tax_treaty_country",
		"w8ben.tax_treaty_citation", "w8ben.tax_treaty_rate", "w8ben.tax_treaty_income_type", "w8ben.tax_treaty_explanation"}
)

func complianceKind(s string) string {
	if s == "w8ben" {
		return "w8ben"
	}
	return "w9"
}

func withAddress(fields []string, prefix string) []string {
	out := append([]string(nil), fields...)
	for _, f := range addressFields {
		out = append(out, prefix+".address."+f)
	}
	return out
}

// newCompliance shows the W-9 or W-8BEN form.
func (h *Handlers) newCompliance(c *fiber.Ctx) error {
	return h.renderCompliance(c, fiber.StatusOK, complianceKind(c.Query("form")), components.Form{})
}

func (h *Handlers) renderCompliance(c *fiber.Ctx, status int, kind string, form components.Form) error {
	u, err := h.getUser(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	p := pages.ComplianceProps{UserID: u.ID, UserName: u.Name(), Kind: kind, Form: form, IncomeTypes: components.TreatyIncomeTypes()}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Tax form", Content: pages.ComplianceNew(view, p), Fragment: pages.ComplianceForm(view, p)})
}

// submitCompliance files the user's tax form.
func (h *Handlers) submitCompliance(c *fiber.Ctx) error {
	kind := complianceKind(c.FormValue("kind"))
	var req payouts.ComplianceRequest
	var form components.Form
	address := func(prefix string) payouts.Address {
		v := func(f string) string { return strings.TrimSpace(form.Value(prefix + ".address." + f)) }
		return payouts.Address{Line1: v("line_1"), Line2: v("line_2"), City: v("city"), State: v("state"),
			Country: v("country"), Postcode: v("postcode")}
	}
	if kind == "w8ben" {
		form = formOf(c, withAddress(w8benFields, "w8ben")...)
		v := func(f string) string { return strings.TrimSpace(form.Value("w8ben." + f)) }
		req.W8BEN = &payouts.W8BEN{Name: v("name"), CitizenshipCountry: v("citizenship_country"),
			DateOfBirth: v("date_of_birth"), TIN: v("tin"), ForeignTaxID: v("foreign_tax_id"),
			Address: address("w8ben"), Signature: payouts.Signature{Consent: v("signature.consent") == "true",
				Name: v("signature.name"), Email: v("signature.email")},
			TaxTreatyCountry: v("tax_treaty_country"), TaxTreatyCitation: v("tax_treaty_citation"),
			TaxTreatyIncomeType: v("tax_treaty_income_type"), TaxTreatyExplanation: v("tax_treaty_explanation")}
		rate, err := payouts.ParseTreatyRate(v("tax_treaty_rate"))
		if formFailed(err, &form) {
			return h.renderCompliance(c, fiber.StatusUnprocessableEntity, kind, form)
		}
		req.W8BEN.TaxTreatyRate = rate
	} else {
		form = formOf(c, withAddress(w9Fields, "w9")...)
		req.W9 = &payouts.W9{EntityType: payouts.EntityType(form.Value("w9.entity_type")), BusinessName: form.Value("w9.business_name"),
			FirstName: form.Value("w9.first_name"), LastName: form.Value("w9.last_name"), DateOfBirth: form.Value("w9.date_of_birth"),
			TIN: form.Value("w9.tin"), Address: address("w9")}
	}
	err := h.payouts.SubmitCompliance(c.UserContext(), c.Params("id"), req)
	// Tax ids are never sent back to the browser, even to correct them.
	form.Values["w9.tin"], form.Values["w8ben.tin"], form.Values["w8ben.foreign_tax_id"] = "", "", ""
	if formFailed(err, &form) {
		return h.renderCompliance(c, fiber.StatusUnprocessableEntity, kind, form)
	}
	if err != nil {
		return err
	}
	label := map[string]string{"w9": "W-9", "w8ben": "W-8BEN"}[kind]
	h.audit(c, "compliance.submit", "user", c.Params("id"), label)
	web.Flash(c, web.FlashSuccess, label+" submitted.")
	return web.Redirect(c, paths.User(c.Params("id")))
}
