package payouts

// App is a tenant of the service: a company that pays people. Every other object belongs to one
// app, and one app can never see another's.
type App struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Wallet  Wallet `json:"wallet"`
	Created Time   `json:"created"`
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

// Credentials are an app's API credentials, shown once when they are made.
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
