package payouts

import "strings"

// Platform is a payout rail.
type Platform string

const (
	PlatformPayPal  Platform = "paypal"
	PlatformVenmo   Platform = "venmo"
	PlatformCashApp Platform = "cash_app"
	PlatformACH     Platform = "ach"
	// PlatformDefault in a payout request means the user's default payout method.
	PlatformDefault Platform = "default"
	// PlatformBankTransfer is the public API's other name for ach.
	PlatformBankTransfer Platform = "bank_transfer"
)

// Platforms lists the rails in display order.
var Platforms = []Platform{PlatformPayPal, PlatformVenmo, PlatformCashApp, PlatformACH}

// Valid reports whether p is a rail a method can be saved for.
func (p Platform) Valid() bool {
	switch p {
	case PlatformPayPal, PlatformVenmo, PlatformCashApp, PlatformACH:
		return true
	}
	return false
}

// Label is the platform's name for people.
func (p Platform) Label() string {
	switch p {
	case PlatformPayPal:
		return "PayPal"
	case PlatformVenmo:
		return "Venmo"
	case PlatformCashApp:
		return "Cash App"
	case PlatformACH, PlatformBankTransfer:
		return "Bank account (ACH)"
	case PlatformDefault:
		return "Default method"
	}
	return string(p)
}

// AccountType is the kind of a bank account.
type AccountType string

const (
	AccountChecking AccountType = "checking"
	AccountSavings  AccountType = "savings"
)

// PayoutMethod is a saved way to pay a user. Full account numbers are never returned.
type PayoutMethod struct {
	ID          string   `json:"id"`
	Platform    Platform `json:"platform"`
	Description string   `json:"description"`
	Mask        string   `json:"mask,omitempty"`
	Email       string   `json:"email,omitempty"`
	PhoneNumber string   `json:"phone_number,omitempty"`
	Handle      string   `json:"handle,omitempty"`
	CashTag     string   `json:"cash_tag,omitempty"`
	Country     string   `json:"country"`
	Currency    string   `json:"currency"`
	Default     bool     `json:"default"`
	Created     Time     `json:"created"`
}

// AddPayoutMethodRequest is the body of PUT /v2/users/{id}/payout-methods.
type AddPayoutMethodRequest struct {
	Platform      Platform    `json:"platform"`
	Email         string      `json:"email,omitempty"`
	PhoneNumber   string      `json:"phone_number,omitempty"`
	Handle        string      `json:"handle,omitempty"`
	CashTag       string      `json:"cash_tag,omitempty"`
	RoutingNumber string      `json:"routing_number,omitempty"`
	AccountNumber string      `json:"account_number,omitempty"`
	AccountType   AccountType `json:"account_type,omitempty"`
	IsDefault     bool        `json:"is_default,omitempty"`
}

// Normalize returns the request trimmed, the handle without its "@", and only the fields its
// platform uses.
func (r AddPayoutMethodRequest) Normalize() AddPayoutMethodRequest {
	out := AddPayoutMethodRequest{Platform: r.Platform, IsDefault: r.IsDefault}
	switch r.Platform {
	case PlatformPayPal:
		out.Email = strings.TrimSpace(r.Email)
	case PlatformVenmo:
		out.PhoneNumber = strings.TrimSpace(r.PhoneNumber)
		if phone, err := ParseVenmoPhone(out.PhoneNumber); err == nil {
			out.PhoneNumber = phone.E164() // stored with its country: a Venmo method's is always +1
		}
		out.Handle = strings.TrimPrefix(strings.TrimSpace(r.Handle), "@")
	case PlatformCashApp, PlatformACH:
		out.CashTag = strings.TrimSpace(r.CashTag)
		out.RoutingNumber = strings.TrimSpace(r.RoutingNumber)
		out.AccountNumber = strings.TrimSpace(r.AccountNumber)
		if r.Platform == PlatformACH {
			out.CashTag, out.AccountType = "", r.AccountType
		}
	}
	return out
}

// Validate checks the fields the platform needs, normalized.
func (r AddPayoutMethodRequest) Validate() error {
	r = r.Normalize()
	p := Problems{}
	bank := func() {
		switch {
		case r.RoutingNumber == "":
			p.Add("routing_number", "is required")
		case !ValidRoutingNumber(r.RoutingNumber):
			p.Add("routing_number", "is not a valid 9-digit ABA routing number")
		}
		switch {
		case r.AccountNumber == "":
			p.Add("account_number", "is required")
		case !ValidAccountNumber(r.AccountNumber):
			p.Add("account_number", "must be 4 to 17 digits")
		}
	}
	switch r.Platform {
	case PlatformPayPal:
		if r.Email == "" {
			p.Add("email", "is required for paypal")
		}
		p.email("email", r.Email, false)
	case PlatformVenmo:
		switch {
		case r.PhoneNumber == "" && r.Handle == "":
			p.Add("phone_number", "give phone_number or handle for venmo")
		case r.PhoneNumber != "":
			if _, err := ParseVenmoPhone(r.PhoneNumber); err != nil {
				p.Add("phone_number", err.Error())
			}
		case r.Handle != "" && !ValidHandle(r.Handle):
			p.Add("handle", "must be 5 to 30 letters, digits, - or _")
		}
	case PlatformCashApp:
		switch {
		case r.CashTag == "":
			p.Add("cash_tag", "is required for cash_app")
		case !ValidCashTag(r.CashTag):
			p.Add("cash_tag", "must look like $name")
		}
		bank()
	case PlatformACH:
		bank()
		switch r.AccountType {
		case AccountChecking, AccountSavings:
		case "":
			p.Add("account_type", "is required for ach")
		default:
			p.Add("account_type", "must be checking or savings")
		}
	case "":
		p.Add("platform", "is required")
	default:
		p.Add("platform", "must be paypal, venmo, cash_app or ach")
	}
	return p.Err()
}
