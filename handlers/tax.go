package handlers

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

const taxTitle = "Tax forms"

// taxYearOf is the year a tax page or action is about: the form's or query's year, else the
// current year (the one being closed at the year's end).
func (h *Handlers) taxYearOf(c *fiber.Ctx) (int, error) {
	v := strings.TrimSpace(c.FormValue("year", c.Query("year")))
	if v == "" {
		return h.now().Year(), nil
	}
	y, err := strconv.Atoi(v)
	if err != nil || y < 2000 || y > 9999 {
		return 0, fiber.NewError(fiber.StatusBadRequest, "year: must be a calendar year, such as 2026")
	}
	return y, nil
}

// taxPayeesOf reads the payees of the year a page or action is about.
func (h *Handlers) taxPayeesOf(c *fiber.Ctx) (int, []payouts.ReportableTotal, error) {
	year, err := h.taxYearOf(c)
	if err != nil {
		return 0, nil, err
	}
	payees, err := h.payouts.TaxPayees(c.UserContext(), year)
	return year, payees, err
}

// taxUnavailable answers every tax route on a service without the tax-forms extension (the
// public API) with the page saying so, before anything asks the service for what it lacks.
func (h *Handlers) taxUnavailable(c *fiber.Ctx) (done bool, err error) {
	return h.unavailable(c, payouts.ExtTaxForms, taxTitle, "Year-end tax forms")
}

// taxForms is the year-end page: the payees due a 1099-NEC with their totals, those with no
// W-9, the forms issued, corrected and voided, and the files for the IRS and for mailing.
func (h *Handlers) taxForms(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	year, payees, err := h.taxPayeesOf(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	forms, err := h.payouts.TaxForms(ctx, year, "")
	if err != nil {
		return err
	}
	p := pages.TaxProps{Year: year, Years: []int{year - 1, year, year + 1}}
	if y := h.now().Year(); !slices.Contains(p.Years, y) {
		p.Years = append(p.Years, y)
	}
	inForce := map[string]payouts.Form1099{}
	for _, f := range forms {
		inForce[f.UserID] = f // oldest first: the last is the one in force
	}
	for _, t := range payees {
		row := pages.TaxPayeeRow{Total: t, UserURL: "/users/" + t.UserID}
		if f, ok := inForce[t.UserID]; ok {
			row.Form = &f
		}
		switch {
		case t.MissingTIN:
			p.MissingTIN = append(p.MissingTIN, row)
		case t.Reportable:
			p.Due = append(p.Due, row)
			if !t.Consented && row.Form != nil {
				p.ToMail = append(p.ToMail, row)
			}
		}
	}
	names := map[string]string{}
	for _, t := range payees {
		names[t.UserID] = t.Name
	}
	for i := len(forms) - 1; i >= 0; i-- {
		f := forms[i]
		p.Forms = append(p.Forms, pages.TaxFormRow{Form: f, Payee: cmp.Or(names[f.UserID], f.Payee.Name)})
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: taxTitle, Content: pages.Tax(h.web.View(c), p)})
}

// generateTaxForms brings the year's forms in line with the ledger: issued, corrected, voided.
func (h *Handlers) generateTaxForms(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	year, err := h.taxYearOf(c)
	if err != nil {
		return err
	}
	run, err := h.payouts.GenerateTaxForms(c.UserContext(), year)
	var refused *payouts.Error
	if errors.As(err, &refused) && refused.Status < 500 {
		web.Flash(c, web.FlashError, refused.Message)
		return web.Redirect(c, taxPath(year))
	}
	if err != nil {
		return err
	}
	count := map[string]int{}
	for _, f := range run.Written {
		count[f.Status]++
	}
	summary := fmt.Sprintf("%d issued, %d corrected, %d voided", count[payouts.Form1099Issued],
		count[payouts.Form1099Corrected], count[payouts.Form1099Voided])
	if len(run.Skipped) > 0 {
		summary += fmt.Sprintf("; %d payees due one have no W-9", len(run.Skipped))
	}
	h.audit(c, "tax.generate", "app", h.appID, fmt.Sprintf("generated the %d 1099-NEC forms: %s", year, summary))
	web.Flash(c, web.FlashSuccess, fmt.Sprintf("%d forms: %s.", year, summary))
	return web.Redirect(c, taxPath(year))
}

func taxPath(year int) string { return "/tax?year=" + strconv.Itoa(year) }

// requestW9s gives each payee of the year due a form without a W-9 a hosted flow with the
// compliance step, where they fill in their W-9.
func (h *Handlers) requestW9s(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	return h.flowForEach(c, payouts.StepCompliance, "tax.w9_request", "a W-9",
		func(t payouts.ReportableTotal) bool { return t.MissingTIN })
}

// offerDelivery gives each payee of the year with a form who has not consented to electronic
// delivery a hosted flow with the tax-forms step, where they may consent and download it.
func (h *Handlers) offerDelivery(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	return h.flowForEach(c, payouts.StepTaxForms, "tax.delivery_offer", "consent to electronic delivery",
		func(t payouts.ReportableTotal) bool { return t.Reportable && !t.MissingTIN && !t.Consented })
}

// flowForEach makes a flow with step for each payee of the year pick chooses, audited as action;
// the Flows page lists their links, for the company to send.
func (h *Handlers) flowForEach(c *fiber.Ctx, step, action, what string, pick func(payouts.ReportableTotal) bool) error {
	year, payees, err := h.taxPayeesOf(c)
	if err != nil {
		return err
	}
	n := 0
	for _, t := range payees {
		if !pick(t) {
			continue
		}
		f, err := h.payouts.CreateFlow(c.UserContext(), payouts.CreateFlowRequest{UserID: t.UserID,
			Steps: []payouts.Step{{Name: step}}})
		if err != nil {
			return err
		}
		h.audit(c, action, "flow", f.ID, fmt.Sprintf("asked %s for %s for %d", t.UserID, what, year))
		n++
	}
	web.Flash(c, web.FlashSuccess, fmt.Sprintf("Made a flow asking for %s for %d payees; the Flows page lists their links to send.", what, n))
	return web.Redirect(c, taxPath(year))
}

// taxFormPDF is a form's Copy B: a download, or with preview=1 shown in the browser.
func (h *Handlers) taxFormPDF(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	id := c.Params("id")
	pdf, err := h.payouts.TaxFormPDF(c.UserContext(), id)
	if err != nil {
		return err
	}
	disposition, action := "attachment", "tax.download"
	if c.Query("preview") == "1" {
		disposition, action = "inline", "tax.preview"
	}
	h.audit(c, action, "tax_form", id, "Copy B of 1099-NEC "+id)
	return sendFile(c, "application/pdf", disposition, "1099-NEC-"+id+".pdf", pdf)
}

// taxCopies is the ZIP of every Copy B in force for the year, or of those to mail.
func (h *Handlers) taxCopies(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	year, err := h.taxYearOf(c)
	if err != nil {
		return err
	}
	toMail := c.Query("to_mail") == "1"
	data, err := h.payouts.TaxFormsZIP(c.UserContext(), year, toMail)
	if err != nil {
		return err
	}
	what := "every Copy B"
	if toMail {
		what = "the Copy B to mail"
	}
	h.audit(c, "tax.download", "app", h.appID, fmt.Sprintf("ZIP of %s of %d", what, year))
	return sendFile(c, "application/zip", "attachment", fmt.Sprintf("1099-NEC-%d-copy-b.zip", year), data)
}

// taxIRIS is the year's IRIS upload; a file the service refuses comes back to the page with
// every problem named.
func (h *Handlers) taxIRIS(c *fiber.Ctx) error {
	if done, err := h.taxUnavailable(c); done || err != nil {
		return err
	}
	year, err := h.taxYearOf(c)
	if err != nil {
		return err
	}
	corrections := c.Query("corrections") == "1"
	data, err := h.payouts.IRISFile(c.UserContext(), year, corrections)
	var refused *payouts.Error
	if errors.As(err, &refused) && refused.Status < 500 {
		problems := make([]string, 0, len(refused.Fields))
		for f, p := range refused.Fields {
			problems = append(problems, f+" "+p)
		}
		slices.Sort(problems)
		msg := refused.Message
		if len(problems) > 0 {
			msg = "The IRIS file was not made: " + strings.Join(problems, "; ")
		}
		web.Flash(c, web.FlashError, msg)
		return web.Redirect(c, taxPath(year))
	}
	if err != nil {
		return err
	}
	name := fmt.Sprintf("1099-NEC-%d-iris", year)
	if corrections {
		name += "-corrections"
	}
	h.audit(c, "tax.download", "app", h.appID, fmt.Sprintf("IRIS file of %d (%s)", year, name))
	return sendFile(c, "text/csv; charset=utf-8", "attachment", name+".csv", data)
}

// sendFile answers a file the browser saves (attachment) or shows (inline).
func sendFile(c *fiber.Ctx, contentType, disposition, name string, data []byte) error {
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, disposition+`; filename="`+name+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(data)
}
