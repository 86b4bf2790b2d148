package api

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// pathYear is the calendar year of a /tax-years/{year} path.
func pathYear(c *fiber.Ctx) (int, error) {
	y, err := strconv.Atoi(c.Params("year"))
	if err != nil {
		return 0, payouts.FieldError("year", "must be a calendar year, such as 2026")
	}
	return y, nil
}

// taxPayees answers every payee paid in the year with their 1099-NEC box 1 (our extension).
func (h *handler) taxPayees(c *fiber.Ctx) error {
	year, err := pathYear(c)
	if err != nil {
		return err
	}
	totals, err := h.svc.ReportableTotals(c.UserContext(), appID(c), year)
	if err != nil {
		return err
	}
	return c.JSON(payouts.List[payouts.ReportableTotal]{Data: totals})
}

// userTaxYear answers one payee's 1099-NEC box 1 for the year (our extension).
func (h *handler) userTaxYear(c *fiber.Ctx) error {
	year, err := pathYear(c)
	if err != nil {
		return err
	}
	t, err := h.svc.ReportableTotal(c.UserContext(), appID(c), c.Params("user_id"), year)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

// generateTaxForms issues, corrects and voids the year's 1099-NEC forms (our extension).
func (h *handler) generateTaxForms(c *fiber.Ctx) error {
	year, err := pathYear(c)
	if err != nil {
		return err
	}
	run, err := h.svc.GenerateForms1099(c.UserContext(), appID(c), year)
	if err != nil {
		return err
	}
	return c.JSON(run)
}

// taxForms answers every version of the year's forms, of the user_id query's payee if given.
func (h *handler) taxForms(c *fiber.Ctx) error {
	return h.listTaxForms(c, c.Query("user_id"))
}

// userTaxForms answers every version of a payee's forms for the year query's year.
func (h *handler) userTaxForms(c *fiber.Ctx) error {
	return h.listTaxForms(c, c.Params("user_id"))
}

func (h *handler) listTaxForms(c *fiber.Ctx, userID string) error {
	year := c.Params("year", c.Query("year"))
	y, err := strconv.Atoi(year)
	if err != nil {
		return payouts.FieldError("year", "must be a calendar year, such as 2026")
	}
	forms, err := h.svc.Forms1099(c.UserContext(), appID(c), y, userID)
	if err != nil {
		return err
	}
	return c.JSON(payouts.List[payouts.Form1099]{Data: forms})
}

// taxFormPDF answers a form's Copy B as a PDF download.
func (h *handler) taxFormPDF(c *fiber.Ctx) error {
	name, pdf, err := h.svc.Form1099PDF(c.UserContext(), appID(c), c.Params("form_id"))
	if err != nil {
		return err
	}
	return download(c, "application/pdf", name, pdf)
}

// taxFormsZIP answers the Copy B of every form in force for the year, or of those to mail.
func (h *handler) taxFormsZIP(c *fiber.Ctx) error {
	year, err := pathYear(c)
	if err != nil {
		return err
	}
	toMail := c.Query("to_mail") == "true"
	data, err := h.svc.Forms1099ZIP(c.UserContext(), appID(c), year, toMail)
	if err != nil {
		return err
	}
	return download(c, "application/zip", "1099-NEC-"+strconv.Itoa(year)+"-copy-b.zip", data)
}

// irisFile answers the year's IRIS upload, originals or (corrections=true) corrections.
func (h *handler) irisFile(c *fiber.Ctx) error {
	year, err := pathYear(c)
	if err != nil {
		return err
	}
	corrections := c.Query("corrections") == "true"
	data, err := h.svc.IRISFile(c.UserContext(), appID(c), year, corrections)
	if err != nil {
		return err
	}
	name := "1099-NEC-" + strconv.Itoa(year) + "-iris"
	if corrections {
		name += "-corrections"
	}
	return download(c, "text/csv; charset=utf-8", name+".csv", data)
}

// download answers a file with its type and name.
func download(c *fiber.Ctx, contentType, name string, data []byte) error {
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Send(data)
}
