package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// The year-end 1099-NEC calls are our extension "tax-forms" (docs/API.md).

// TaxPayees returns every payee the app paid in year with their 1099-NEC box 1, by name
// (GET /v2/tax-years/{year}/payees).
func (c *Client) TaxPayees(ctx context.Context, year int) ([]payouts.ReportableTotal, error) {
	l, err := call[payouts.List[payouts.ReportableTotal]](ctx, c, get("v2", "tax-years", strconv.Itoa(year), "payees"))
	if err != nil {
		return nil, err
	}
	return l.Data, nil
}

// UserTaxYear returns one payee's 1099-NEC box 1 for year (GET /v2/users/{id}/tax-years/{year}).
func (c *Client) UserTaxYear(ctx context.Context, userID string, year int) (*payouts.ReportableTotal, error) {
	return call[payouts.ReportableTotal](ctx, c, get("v2", "users", userID, "tax-years", strconv.Itoa(year)))
}

// GenerateTaxForms issues, corrects and voids the year's forms so they agree with the ledger
// (POST /v2/tax-years/{year}/forms). Running it again with nothing changed writes nothing, so it
// is safe to retry.
func (c *Client) GenerateTaxForms(ctx context.Context, year int) (*payouts.Forms1099Run, error) {
	return call[payouts.Forms1099Run](ctx, c, request{method: http.MethodPost,
		segments: []string{"v2", "tax-years", strconv.Itoa(year), "forms"}, retry: true})
}

// TaxForms returns every version of the year's forms, of userID's payee when it is not empty
// (GET /v2/tax-years/{year}/forms, GET /v2/users/{id}/tax-forms).
func (c *Client) TaxForms(ctx context.Context, year int, userID string) ([]payouts.Form1099, error) {
	req := get("v2", "tax-years", strconv.Itoa(year), "forms")
	if userID != "" {
		req = get("v2", "users", userID, "tax-forms")
		req.query = url.Values{"year": {strconv.Itoa(year)}}
	}
	l, err := call[payouts.List[payouts.Form1099]](ctx, c, req)
	if err != nil {
		return nil, err
	}
	return l.Data, nil
}

// TaxFormPDF returns a form's Copy B as a PDF (GET /v2/tax-forms/{id}/pdf).
func (c *Client) TaxFormPDF(ctx context.Context, formID string) ([]byte, error) {
	return c.file(ctx, get("v2", "tax-forms", formID, "pdf"))
}

// TaxFormsZIP returns the Copy B of each payee's form in force for year in one ZIP; toMail keeps
// only payees who did not consent to electronic delivery (GET /v2/tax-years/{year}/copies).
func (c *Client) TaxFormsZIP(ctx context.Context, year int, toMail bool) ([]byte, error) {
	req := get("v2", "tax-years", strconv.Itoa(year), "copies")
	if toMail {
		req.query = url.Values{"to_mail": {"true"}}
	}
	return c.file(ctx, req)
}

// IRISFile returns the year's 1099-NEC upload for the IRS's IRIS Taxpayer Portal: the issued
// forms, or with corrections the corrected and voided ones. A record that would not pass is a
// 400 whose fields name each problem (GET /v2/tax-years/{year}/iris).
func (c *Client) IRISFile(ctx context.Context, year int, corrections bool) ([]byte, error) {
	req := get("v2", "tax-years", strconv.Itoa(year), "iris")
	if corrections {
		req.query = url.Values{"corrections": {"true"}}
	}
	return c.file(ctx, req)
}

// file sends r and returns the answer's body as it came: a download, not JSON.
func (c *Client) file(ctx context.Context, r request) ([]byte, error) {
	var body []byte
	if err := c.do(ctx, r, &body); err != nil {
		return nil, err
	}
	return body, nil
}
