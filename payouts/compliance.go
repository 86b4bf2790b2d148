package payouts

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
