package payouts

// Organization is the tenant above apps: its credentials create and list its apps and move money
// between its wallet and theirs. It never sees an app's users or transfers except by acting as
// that app (the Api-App-Id header).
type Organization struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Wallet  Wallet `json:"wallet"`
	Created Time   `json:"created"`
}

// OrganizationTransfer moves money between an organization's wallet and one of its apps'.
type OrganizationTransfer struct {
	ID             string         `json:"id"`
	Created        Time           `json:"created"`
	Amount         Money          `json:"amount"`
	APIAppID       string         `json:"api_app_id"`
	Status         TransferStatus `json:"status"`
	Metadata       Metadata       `json:"metadata"`
	OrganizationID string         `json:"organization_id"`
}

// CreateOrganizationTransferRequest is the body of POST /v2/organization-transfers. Like a
// transfer's, the sign says the direction: negative from the organization to the app, positive
// from the app to the organization.
type CreateOrganizationTransferRequest struct {
	Amount         int64    `json:"amount"`
	APIAppID       string   `json:"api_app_id"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
}

// Validate checks the request.
func (r CreateOrganizationTransferRequest) Validate() error {
	p := Problems{}
	p.id("api_app_id", r.APIAppID, true)
	p.amount(r.Amount, true)
	p.key(r.IdempotencyKey)
	p.metadata(r.Metadata)
	return p.Err()
}
