package payouts

import "strings"

// App is a tenant of the service: a company that pays people. Every other object belongs to one
// app, and one app can never see another's.
type App struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Status   AppStatus  `json:"status,omitempty"`
	Metrics  AppMetrics `json:"metrics"`
	Metadata Metadata   `json:"metadata,omitempty"`
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
	p.metadata(r.Metadata)
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

// Validate checks a positive amount and the metadata.
func (r DepositRequest) Validate() error {
	p := Problems{}
	p.amount(r.Amount, false)
	p.metadata(r.Metadata)
	return p.Err()
}
