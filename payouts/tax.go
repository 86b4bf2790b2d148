package payouts

import "time"

// Which tax form, if any, a payee gave (ReportableTotal.TaxForm).
const (
	TaxFormW9    = "w9"
	TaxFormW8BEN = "w8ben"
)

// The statuses of a 1099-NEC form (Form1099.Status): the first version of a payee's form for a
// year is issued, a later one corrects it or voids it.
const (
	Form1099Issued    = "issued"
	Form1099Corrected = "corrected"
	Form1099Voided    = "voided"
)

// ReportableTotal is what a payee was paid in a calendar year as Form 1099-NEC box 1 counts it:
// GET /v2/users/{id}/tax-years/{year}, our extension.
type ReportableTotal struct {
	UserID    string `json:"user_id"`
	Name      string `json:"name"`
	Year      int    `json:"year"`
	Amount    Money  `json:"amount"`
	Threshold Money  `json:"threshold"`
	// TaxForm is the form in force: "w9", "w8ben", or "" when the payee gave none.
	TaxForm  string `json:"tax_form"`
	TINLast4 string `json:"tin_last4,omitempty"`
	// Reportable says a 1099-NEC is due: the amount is at or over the threshold and the payee
	// is not a foreign person on a W-8BEN. MissingTIN says it is due but no W-9 is on file.
	Reportable bool `json:"reportable"`
	MissingTIN bool `json:"missing_tin"`
	// Consented says the payee agreed to receive their forms electronically.
	Consented bool `json:"consented"`
	// ConsentWithdrawn is when the payee withdrew their consent, if they did and have not
	// consented again: their forms are mailed.
	ConsentWithdrawn *time.Time `json:"consent_withdrawn,omitempty"`
}

// TaxPayer is the payer's block of a 1099-NEC: the app's business, from its compliance. TIN is
// the EIN; reads show it masked (MaskEIN).
type TaxPayer struct {
	Name    string        `json:"name"`
	TIN     string        `json:"tin"`
	Phone   string        `json:"phone"`
	Address PostalAddress `json:"address"`
}

// TaxPayee is the recipient's block of a 1099-NEC, from their W-9. TIN is shown truncated to its
// last four digits on every read and on the recipient's copy.
type TaxPayee struct {
	Name     string `json:"name"`
	TIN      string `json:"tin,omitempty"`
	TINLast4 string `json:"tin_last4"`
	// Business says the TIN is an EIN (a business on its W-9), else an SSN or ITIN.
	Business bool    `json:"business"`
	Address  Address `json:"address"`
}

// Form1099 is one version of a payee's 1099-NEC for a year: GET /v2/users/{id}/tax-forms.
type Form1099 struct {
	ID     string `json:"id"`
	UserID string `json:"user_id"`
	Year   int    `json:"year"`
	// Amount is box 1, nonemployee compensation; 0 on a voided form.
	Amount Money  `json:"amount"`
	Status string `json:"status"`
	// Corrects is the id of the version this one replaces.
	Corrects string   `json:"corrects,omitempty"`
	Payer    TaxPayer `json:"payer"`
	Payee    TaxPayee `json:"payee"`
	Created  Time     `json:"created"`
}

// Forms1099Run is what generating a year's forms did: the forms it wrote, and the payees who
// are due one but could not be given one (no W-9 on file), by user id with the reason.
type Forms1099Run struct {
	Year    int               `json:"year"`
	Written []Form1099        `json:"written"`
	Skipped map[string]string `json:"skipped,omitempty"`
}
