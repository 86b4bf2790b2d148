package payouts

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// ACHAccount is the bank account an app withdraws to, as GET /v2/apps/{id}/ach-account shows it:
// the number by its last four digits (mask) only.
type ACHAccount struct {
	Mask          string      `json:"mask"`
	Name          string      `json:"name"`
	RoutingNumber string      `json:"routing_number"`
	AccountType   AccountType `json:"account_type"`
}

// ACHAccountRequest is the body of PUT /v2/apps/{id}/ach-account.
type ACHAccountRequest struct {
	AccountNumber string      `json:"account_number"`
	RoutingNumber string      `json:"routing_number"`
	AccountType   AccountType `json:"account_type"`
}

// Validate checks the request.
func (r ACHAccountRequest) Validate() error {
	p := Problems{}
	if !ValidAccountNumber(r.AccountNumber) {
		p.Add("account_number", "must be 4 to 17 digits")
	}
	if !ValidRoutingNumber(r.RoutingNumber) {
		p.Add("routing_number", "must be a 9-digit ABA routing number")
	}
	if r.AccountType != AccountChecking && r.AccountType != AccountSavings {
		p.Add("account_type", "must be checking or savings")
	}
	return p.Err()
}

// WithdrawRequest is the body of POST /v2/apps/{id}/withdraw: money from the app's wallet to its
// bank account.
type WithdrawRequest struct {
	Amount         int64    `json:"amount"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
}

// Validate checks the request.
func (r WithdrawRequest) Validate() error {
	p := Problems{}
	p.amount(r.Amount, false)
	p.key(r.IdempotencyKey)
	p.metadata(r.Metadata)
	return p.Err()
}

// BusinessCompliance is the business behind an app, in the public API's shape: PUT and GET
// /v2/apps/{id}/compliance. It is sealed at rest; reads show the EIN masked (MaskEIN) in the
// field the model requires, and never the EIN itself.
type BusinessCompliance struct {
	CompanyInfo CompanyInfo `json:"company_info"`
	ContactInfo ContactInfo `json:"contact_info"`
	Directors   []Director  `json:"directors"`
	FlowOfFunds FlowOfFunds `json:"flow_of_funds"`
}

// CompanyInfo is the company's registration.
type CompanyInfo struct {
	Name string `json:"name"`
	// EIN is the 9 digits in a request; a read shows it masked, "**-***6789".
	EIN string `json:"ein"`
	// EINLast4 is ours, in reads: the EIN's last four digits alone.
	EINLast4           string `json:"ein_last4,omitempty"`
	IncorporationDate  string `json:"incorporation_date"` // YYYY-MM-DD
	IncorporationState string `json:"incorporation_state"`
	IncorporationType  string `json:"incorporation_type"`
	Website            string `json:"website"`
	DBA                string `json:"dba,omitempty"`
}

// MaskEIN writes an EIN as reads show it: its last four digits behind a mask in the EIN's own
// form (XX-XXXXXXX), so that no read ever carries the number in clear.
func MaskEIN(ein string) string { return "**-***" + Last4(ein) }

// ContactInfo is where the business is reached.
type ContactInfo struct {
	Email       string `json:"email"`
	PhoneNumber string `json:"phone_number"`
	PostalAddress
}

// PostalAddress is an address as the public API writes a business's.
type PostalAddress struct {
	Line1   string `json:"line1"`
	Line2   string `json:"line2,omitempty"`
	City    string `json:"city"`
	State   string `json:"state,omitempty"`
	Zip     string `json:"zip"`
	Country string `json:"country"`
}

// Director is an officer or owner of the business.
type Director struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Title     string `json:"title"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
	DOB       string `json:"dob"` // YYYY-MM-DD
	// OwnershipPercentage is a number from 0 to 100, kept exactly as written.
	OwnershipPercentage json.Number   `json:"ownership_percentage"`
	Address             PostalAddress `json:"address"`
}

// FlowOfFunds says why and how the business pays people.
type FlowOfFunds struct {
	Reasons string `json:"reasons"`
	Usage   string `json:"usage"`
}

var incorporationTypes = []string{"sole_proprietorship", "partnership", "llc", "c_corporation", "s_corporation"}

// MaxDirectors bounds the directors of one compliance request.
const MaxDirectors = 20

// Validate checks the business's details as a request.
func (c BusinessCompliance) Validate() error {
	p := Problems{}
	ci := c.CompanyInfo
	text(p, "company_info.name", ci.Name, true)
	if len(ci.EIN) != 9 || !AllDigits(ci.EIN) {
		p.Add("company_info.ein", "must be 9 digits")
	}
	if !ValidDate(ci.IncorporationDate) {
		p.Add("company_info.incorporation_date", "must be a date written YYYY-MM-DD")
	}
	text(p, "company_info.incorporation_state", ci.IncorporationState, true)
	if !slices.Contains(incorporationTypes, ci.IncorporationType) {
		p.Add("company_info.incorporation_type", "must be one of "+strings.Join(incorporationTypes, ", "))
	}
	text(p, "company_info.website", ci.Website, true)
	text(p, "company_info.dba", ci.DBA, false)
	if !ValidEmail(c.ContactInfo.Email) {
		p.Add("contact_info.email", "is not a valid email address")
	}
	text(p, "contact_info.phone_number", c.ContactInfo.PhoneNumber, true)
	checkPostal(p, "contact_info.", c.ContactInfo.PostalAddress)
	switch {
	case len(c.Directors) == 0:
		p.Add("directors", "must name at least one director")
	case len(c.Directors) > MaxDirectors:
		p.Add("directors", "must name at most 20 directors")
	}
	for i, d := range c.Directors {
		prefix := "directors[" + strconv.Itoa(i) + "]."
		text(p, prefix+"first_name", d.FirstName, true)
		text(p, prefix+"last_name", d.LastName, true)
		text(p, prefix+"title", d.Title, true)
		text(p, prefix+"phone", d.Phone, true)
		if !ValidEmail(d.Email) {
			p.Add(prefix+"email", "is not a valid email address")
		}
		if !ValidDate(d.DOB) {
			p.Add(prefix+"dob", "must be a date written YYYY-MM-DD")
		}
		share, ok := new(big.Rat).SetString(d.OwnershipPercentage.String())
		if !ok || share.Sign() < 0 || share.Cmp(big.NewRat(100, 1)) > 0 {
			p.Add(prefix+"ownership_percentage", "must be a number from 0 to 100")
		}
		checkPostal(p, prefix+"address.", d.Address)
	}
	text(p, "flow_of_funds.reasons", c.FlowOfFunds.Reasons, true)
	text(p, "flow_of_funds.usage", c.FlowOfFunds.Usage, true)
	return p.Err()
}

func checkPostal(p Problems, prefix string, a PostalAddress) {
	text(p, prefix+"line1", a.Line1, true)
	text(p, prefix+"line2", a.Line2, false)
	text(p, prefix+"city", a.City, true)
	text(p, prefix+"state", a.State, false)
	text(p, prefix+"zip", a.Zip, true)
	text(p, prefix+"country", a.Country, true)
}

// text records a problem with a free-text field: missing when required, or over 200 characters.
func text(p Problems, field, value string, required bool) {
	switch {
	case required && strings.TrimSpace(value) == "":
		p.Add(field, "is required")
	case len(value) > 200:
		p.Add(field, "must be at most 200 characters")
	}
}
