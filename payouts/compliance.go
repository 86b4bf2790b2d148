package payouts

import (
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

// W9 is a US taxpayer's form.
type W9 struct {
	EntityType   EntityType `json:"entity_type"`
	BusinessName string     `json:"business_name,omitempty"`
	FirstName    string     `json:"first_name"`
	LastName     string     `json:"last_name"`
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

// W8BEN is a foreign person's form.
type W8BEN struct {
	Name                  string    `json:"name"`
	CitizenshipCountry    string    `json:"citizenship_country"`
	DateOfBirth           string    `json:"date_of_birth"`
	ForeignTaxID          string    `json:"foreign_tax_id"`
	Address               Address   `json:"address"`
	Signature             Signature `json:"signature"`
	TreatyCountry         string    `json:"treaty_country,omitempty"`
	TreatyArticle         string    `json:"treaty_article,omitempty"`
	TreatyWithholdingRate string    `json:"treaty_withholding_rate,omitempty"`
	TreatyIncomeType      string    `json:"treaty_income_type,omitempty"`
}

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
	p.Required("w9.first_name", w.FirstName)
	p.Required("w9.last_name", w.LastName)
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
	p.Required("w8ben.citizenship_country", w.CitizenshipCountry)
	p.BirthDate("w8ben.date_of_birth", w.DateOfBirth, now)
	p.Required("w8ben.foreign_tax_id", w.ForeignTaxID)
	p.address("w8ben.address", w.Address)
	if !w.Signature.Consent {
		p.Add("w8ben.signature.consent", "must be true: the form is signed under penalty of perjury")
	}
	p.Required("w8ben.signature.name", w.Signature.Name)
	if !ValidEmail(strings.TrimSpace(w.Signature.Email)) {
		p.Add("w8ben.signature.email", "is not a valid email address")
	}
	return p.Err()
}

func (p Problems) address(prefix string, a Address) {
	p.Required(prefix+".line_1", a.Line1)
	p.Required(prefix+".city", a.City)
	p.Required(prefix+".state", a.State)
	p.Required(prefix+".country", a.Country)
	p.Required(prefix+".postcode", a.Postcode)
}
