package payouts

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EntityType is who a W-9 is for.
type EntityType string

const (
	EntityIndividual EntityType = "individual"
	EntityBusiness   EntityType = "business"
)

// Address is a postal address on a tax form.
type Address struct {
	Line1    string `json:"line_1"`
	Line2    string `json:"line_2,omitempty"`
	City     string `json:"city"`
	State    string `json:"state"`
	Country  string `json:"country"`
	Postcode string `json:"postcode"`
}

// W9 is a US taxpayer's form, as the public API declares it: the names are optional (the
// user's own are on file).
type W9 struct {
	EntityType   EntityType `json:"entity_type"`
	BusinessName string     `json:"business_name,omitempty"`
	FirstName    string     `json:"first_name,omitempty"`
	LastName     string     `json:"last_name,omitempty"`
	DateOfBirth  string     `json:"date_of_birth"` // YYYY-MM-DD
	TIN          string     `json:"tin"`           // 9 digits; stored encrypted
	Address      Address    `json:"address"`
}

// Signature is the signer's consent on a W-8BEN.
type Signature struct {
	Consent bool   `json:"consent"`
	Name    string `json:"name"`
	Email   string `json:"email"`
}

// W8BEN is a foreign person's form, field for field as the public API declares it: the US TIN
// required, the tax number of the country of residence and the treaty claim optional.
type W8BEN struct {
	Name               string    `json:"name"`
	CitizenshipCountry string    `json:"citizenship_country"` // two-letter ISO code
	DateOfBirth        string    `json:"date_of_birth"`
	TIN                string    `json:"tin"` // stored encrypted
	ForeignTaxID       string    `json:"foreign_tax_id,omitempty"`
	Address            Address   `json:"address"`
	Signature          Signature `json:"signature"`
	TaxTreatyCountry   string    `json:"tax_treaty_country,omitempty"`  // two-letter ISO code
	TaxTreatyCitation  string    `json:"tax_treaty_citation,omitempty"` // the article and paragraph claimed
	// TaxTreatyRate is the withholding rate claimed, 0.15 for 15%; a rate, not money.
	TaxTreatyRate        *float64 `json:"tax_treaty_rate,omitempty"`
	TaxTreatyIncomeType  string   `json:"tax_treaty_income_type,omitempty"` // one of TreatyIncomeTypes
	TaxTreatyExplanation string   `json:"tax_treaty_explanation,omitempty"`
}

// ParseTreatyRate reads a W-8BEN's treaty rate as a form posts it: empty claims none; anything
// else must be a number, which Validate then holds between 0 and 1.
func ParseTreatyRate(s string) (*float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) {
		return nil, FieldError("w8ben.tax_treaty_rate", "must be a number between 0 and 1, like 0.15 for 15%")
	}
	return &r, nil
}

// TreatyIncomeTypes are the kinds of income a W-8BEN's treaty claim may name, as the public API
// lists them.
var TreatyIncomeTypes = []string{"interest1", "dividend6", "dividend7", "pension15", "socialSecurity",
	"equipment10", "knowhow10", "patent10", "film11", "copyright12"}

// ComplianceRequest is the body of PUT /v2/users/{id}/compliance: exactly one form.
type ComplianceRequest struct {
	W9    *W9    `json:"w9,omitempty"`
	W8BEN *W8BEN `json:"w8ben,omitempty"`
}

// Validate checks that exactly one form is given and complete; a date of birth must be before
// now.
func (r ComplianceRequest) Validate(now time.Time) error {
	switch {
	case r.W9 == nil && r.W8BEN == nil:
		return FieldError("w9", "give a w9 or a w8ben form")
	case r.W9 != nil && r.W8BEN != nil:
		return FieldError("w8ben", "give one form, not both")
	case r.W9 != nil:
		return r.W9.validate(now)
	}
	return r.W8BEN.validate(now)
}

// NormalTIN is the TIN without the dashes and spaces people type in it.
func (w W9) NormalTIN() string {
	return strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(w.TIN))
}

func (w W9) validate(now time.Time) error {
	p := Problems{}
	switch w.EntityType {
	case EntityIndividual:
	case EntityBusiness:
		p.Required("w9.business_name", w.BusinessName)
	case "":
		p.Add("w9.entity_type", "is required")
	default:
		p.Add("w9.entity_type", "must be individual or business")
	}
	p.BirthDate("w9.date_of_birth", w.DateOfBirth, now)
	switch tin := w.NormalTIN(); {
	case tin == "":
		p.Add("w9.tin", "is required")
	case len(tin) != 9 || !AllDigits(tin):
		p.Add("w9.tin", "must be 9 digits")
	}
	p.address("w9.address", w.Address)
	return p.Err()
}

func (w W8BEN) validate(now time.Time) error {
	p := Problems{}
	p.Required("w8ben.name", w.Name)
	p.country("w8ben.citizenship_country", w.CitizenshipCountry, true)
	p.BirthDate("w8ben.date_of_birth", w.DateOfBirth, now)
	p.Required("w8ben.tin", w.TIN)
	p.address("w8ben.address", w.Address)
	if !w.Signature.Consent {
		p.Add("w8ben.signature.consent", "must be true: the form is signed under penalty of perjury")
	}
	p.Required("w8ben.signature.name", w.Signature.Name)
	if !ValidEmail(strings.TrimSpace(w.Signature.Email)) {
		p.Add("w8ben.signature.email", "is not a valid email address")
	}
	p.maxLen("w8ben.foreign_tax_id", w.ForeignTaxID, 200)
	p.country("w8ben.tax_treaty_country", w.TaxTreatyCountry, false)
	p.maxLen("w8ben.tax_treaty_citation", w.TaxTreatyCitation, 200)
	p.maxLen("w8ben.tax_treaty_explanation", w.TaxTreatyExplanation, 1000)
	if r := w.TaxTreatyRate; r != nil && (*r < 0 || *r > 1) {
		p.Add("w8ben.tax_treaty_rate", "must be between 0 and 1, like 0.15 for 15%")
	}
	if t := w.TaxTreatyIncomeType; t != "" && !slices.Contains(TreatyIncomeTypes, t) {
		p.Add("w8ben.tax_treaty_income_type", "must be one of "+strings.Join(TreatyIncomeTypes, ", "))
	}
	return p.Err()
}

// country records a problem with a two-letter ISO country code, which required says must be given.
func (p Problems) country(field, code string, required bool) {
	switch {
	case code == "" && required:
		p.Add(field, "is required")
	case code != "" && (len(code) != 2 || strings.ToUpper(code) != code || !isLetters(code)):
		p.Add(field, "must be a two-letter ISO country code, like GB")
	}
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func (p Problems) address(prefix string, a Address) {
	p.Required(prefix+".line_1", a.Line1)
	p.Required(prefix+".city", a.City)
	p.Required(prefix+".state", a.State)
	p.Required(prefix+".country", a.Country)
	p.Required(prefix+".postcode", a.Postcode)
}
