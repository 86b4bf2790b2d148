package payouts

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
