package payouts

import (
	"slices"
	"strings"
)

// App is a tenant of the service: a company that pays people. Every other object belongs to one
// app, and one app can never see another's.
type App struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Status   AppStatus  `json:"status,omitempty"`
	Metrics  AppMetrics `json:"metrics"`
	Metadata Metadata   `json:"metadata"`
	Wallet   Wallet     `json:"wallet"`
	Created  Time       `json:"created"`
	// OrganizationID is ours: the organization the app belongs to.
	OrganizationID string `json:"organization_id,omitempty"`
	// Credentials are the new app's own, in the answer of POST /v2/apps only.
	Credentials *Credentials `json:"credentials,omitempty"`
}

// AppStatus is where an app stands in the public API's review. Apps made here are approved at
// once: there is no review to wait for.
type AppStatus string

const (
	AppCreated  AppStatus = "created"
	AppInReview AppStatus = "in_review"
	AppApproved AppStatus = "approved"
)

// AppMetrics sums an app's activity. The public API writes money here as decimal dollars in
// strings ("1234.56"), unlike everywhere else.
type AppMetrics struct {
	WalletBalance  string `json:"wallet_balance"`
	MoneyOut       string `json:"money_out"`
	ConnectedUsers int    `json:"connected_users"`
}

// CreateAppRequest is the body of POST /v2/apps, made with an organization's credentials.
type CreateAppRequest struct {
	Name     string   `json:"name"`
	Metadata Metadata `json:"metadata,omitempty"`
}

// Validate checks the request.
func (r CreateAppRequest) Validate() error {
	p := Problems{}
	if n := len(strings.TrimSpace(r.Name)); n == 0 || n > 100 {
		p.Add("name", "must be 1 to 100 characters")
	}
	if m := ValidateMetadata(r.Metadata); m != "" {
		p.Add("metadata", m)
	}
	return p.Err()
}

// Wallet is a balance read off the ledger. Amount is the posted balance; WithdrawableAmount is
// the posted balance less pending debits (money reserved by payouts in flight or open payout
// links); CreditBalance is credit granted that cannot be withdrawn.
type Wallet struct {
	Amount             Money `json:"amount"`
	WithdrawableAmount Money `json:"withdrawable_amount"`
	CreditBalance      Money `json:"credit_balance"`
}

// Reserved is the part of the balance held by pending transfers.
func (w Wallet) Reserved() Money { return w.Amount - w.WithdrawableAmount }

// DepositRequest funds an app's wallet from its bank (a refill).
type DepositRequest struct {
	Amount         int64    `json:"amount"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
}

// Credentials are an app's or an organization's API credentials, shown once when they are made.
type Credentials struct {
	AppID    string `json:"id"`
	Name     string `json:"name"`
	ClientID string `json:"client_id"`
	APIKey   string `json:"api_key"`
}

// ACHAccount is the bank account an app withdraws to; only its last four digits are ever shown.
type ACHAccount struct {
	AccountNumberLast4 string      `json:"account_number_last4"`
	RoutingNumber      string      `json:"routing_number"`
	AccountType        AccountType `json:"account_type"`
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
	CheckAmount(p, r.Amount, false)
	CheckKey(p, r.IdempotencyKey)
	if m := ValidateMetadata(r.Metadata); m != "" {
		p.Add("metadata", m)
	}
	return p.Err()
}

// AppCompliance is the business behind an app, for its tax reporting: PUT and GET
// /v2/apps/{id}/compliance. The EIN is sealed at rest; reads show its last four digits.
type AppCompliance struct {
	LegalName  string  `json:"legal_name"`
	EntityType string  `json:"entity_type"` // llc, corporation, partnership, sole_proprietorship, nonprofit
	EIN        string  `json:"ein,omitempty"`
	EINLast4   string  `json:"ein_last4,omitempty"`
	Website    string  `json:"website,omitempty"`
	Email      string  `json:"email"`
	Address    Address `json:"address"`
}

var entityTypes = []string{"llc", "corporation", "partnership", "sole_proprietorship", "nonprofit"}

// Validate checks the business's details as a request.
func (c AppCompliance) Validate() error {
	p := Problems{}
	if n := len(strings.TrimSpace(c.LegalName)); n == 0 || n > 200 {
		p.Add("legal_name", "must be 1 to 200 characters")
	}
	if !slices.Contains(entityTypes, c.EntityType) {
		p.Add("entity_type", "must be one of "+strings.Join(entityTypes, ", "))
	}
	if len(c.EIN) != 9 || !AllDigits(c.EIN) {
		p.Add("ein", "must be 9 digits")
	}
	if !ValidEmail(c.Email) {
		p.Add("email", "is not a valid email address")
	}
	for f, v := range map[string]string{"address.line_1": c.Address.Line1, "address.city": c.Address.City,
		"address.country": c.Address.Country, "address.postcode": c.Address.Postcode} {
		if strings.TrimSpace(v) == "" || len(v) > 200 {
			p.Add(f, "must be 1 to 200 characters")
		}
	}
	if len(c.Website) > 200 {
		p.Add("website", "must be at most 200 characters")
	}
	return p.Err()
}
