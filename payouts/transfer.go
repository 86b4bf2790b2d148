package payouts

// TransferStatus is where a transfer stands. Balance transfers complete at once; payouts move
// created -> pending -> completed | failed; flagged holds a flagged user's transfer for review; a
// completed payout its rail returned later becomes failed.
type TransferStatus string

const (
	TransferCreated   TransferStatus = "created"
	TransferPending   TransferStatus = "pending"
	TransferCompleted TransferStatus = "completed"
	TransferFailed    TransferStatus = "failed"
	TransferFlagged   TransferStatus = "flagged"
)

var transferTransitions = map[TransferStatus][]TransferStatus{
	TransferCreated: {TransferPending, TransferCompleted, TransferFailed, TransferFlagged},
	TransferPending: {TransferCompleted, TransferFailed},
	// A completed payout its rail returned later (unclaimed, reversed, an ACH return) fails,
	// its money given back.
	TransferCompleted: {TransferFailed},
	TransferFlagged:   {TransferPending, TransferFailed}, // released to the rail, or rejected
}

// Valid reports whether s is a known transfer status.
func (s TransferStatus) Valid() bool {
	_, ok := transferTransitions[s]
	return ok || s == TransferCompleted || s == TransferFailed
}

// CanBecome reports whether a transfer in status s may move to next.
func (s TransferStatus) CanBecome(next TransferStatus) bool {
	for _, t := range transferTransitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// Final reports whether s is an end state: nothing moves a completed transfer on but its rail
// returning the money.
func (s TransferStatus) Final() bool { return s == TransferCompleted || s == TransferFailed }

// TransferType says what a transfer did.
type TransferType string

const (
	TransferRefill  TransferType = "refill"  // the app's bank funded its wallet
	TransferPayout  TransferType = "payout"  // a user's money left on a rail
	TransferBalance TransferType = "balance" // money moved between the app and a user
)

// Valid reports whether t is a known transfer type.
func (t TransferType) Valid() bool {
	return t == TransferRefill || t == TransferPayout || t == TransferBalance
}

// ExternalData identifies a transfer on a rail.
type ExternalData struct {
	AccountID  string   `json:"account_id,omitempty"`
	ExternalID string   `json:"external_id,omitempty"`
	Platform   Platform `json:"platform,omitempty"`
}

// Transfer is one movement of money, made of ledger lines (transactions).
type Transfer struct {
	ID           string         `json:"id"`
	Created      Time           `json:"created"`
	UserID       *string        `json:"user_id,omitempty"`
	Status       TransferStatus `json:"status"`
	Type         TransferType   `json:"type"`
	Amount       Money          `json:"amount"`
	ExternalData ExternalData   `json:"external_data"`
	Transactions []Transaction  `json:"transactions"`
	PayoutLinkID *string        `json:"payout_link_id,omitempty"`
	Metadata     Metadata       `json:"metadata"`
	// FailureReason is ours: why a payout failed, when it did.
	FailureReason string `json:"failure_reason,omitempty"`
	// StatusHistory is ours: every status the transfer took, oldest first (read one at a time).
	StatusHistory []StatusChange `json:"status_history,omitempty"`
	// TaxExempt is ours: the transfer does not count toward its user's 1099 total. The public
	// API does not send it, so there it reads false whatever the transfer was.
	TaxExempt bool `json:"tax_exempt,omitempty"`
}

// HoldsForLink reports whether the transfer is a payout link's reservation of the app's money.
// The public model has no payout_link_id; there a balance transfer without a user is one, as
// every other balance transfer moves money between the app and a user.
func (t Transfer) HoldsForLink() bool {
	return t.PayoutLinkID != nil || (t.Type == TransferBalance && t.UserID == nil)
}

// CreateTransferRequest is the body of POST /v2/transfers. A negative amount moves money from
// the app to the user, a positive one from the user to the app.
type CreateTransferRequest struct {
	UserID         string   `json:"user_id"`
	Amount         int64    `json:"amount"`
	TaxExempt      bool     `json:"tax_exempt,omitempty"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
}

// FeeParty says who pays a payout's fee.
type FeeParty string

const (
	FeePartyUser     FeeParty = "user"
	FeePartyPlatform FeeParty = "platform"
)

// Valid reports whether p names a party ("" means the default).
func (p FeeParty) Valid() bool { return p == "" || p == FeePartyUser || p == FeePartyPlatform }

// CreatePayoutRequest is the body of POST /v2/payouts.
type CreatePayoutRequest struct {
	UserID         string   `json:"user_id"`
	Amount         int64    `json:"amount"`
	Platform       Platform `json:"platform"`
	AccountID      string   `json:"account_id,omitempty"`
	Fund           bool     `json:"fund,omitempty"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
	PayoutFeeParty FeeParty `json:"payout_fee_party,omitempty"`
	TaxExempt      bool     `json:"tax_exempt,omitempty"`
}

// TransferFilter narrows GET /v2/transfers. The creation and amount bounds are ours (Range; the
// amount is the transfer's unsigned amount).
type TransferFilter struct {
	UserID string
	Type   TransferType
	Status TransferStatus
	Range
}

// Review actions on a flagged transfer.
const (
	ReviewRelease = "release"
	ReviewReject  = "reject"
)

// ReviewTransferRequest is the body of POST /v2/transfers/{id}/review, our extension: an
// operator releases a flagged transfer to its rail or rejects it.
type ReviewTransferRequest struct {
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Reviewer is who decides, as the caller names them (the dashboard sends the operator's
	// email). Releasing a payee held by sanctions screening needs it and a reason.
	Reviewer string `json:"reviewer,omitempty"`
}

// Validate checks the user, a non-zero amount and the metadata.
func (r CreateTransferRequest) Validate() error {
	p := Problems{}
	p.id("user_id", r.UserID, true)
	p.amount(r.Amount, true)
	p.metadata(r.Metadata)
	return p.Err()
}

// Validate checks everything a payout request says on its own; whether the user and account
// exist, and the fee, are the service's to check.
func (r CreatePayoutRequest) Validate() error {
	p := Problems{}
	p.id("user_id", r.UserID, true)
	p.amount(r.Amount, false)
	switch {
	case r.Platform == "":
		p.Add("platform", "is required")
	case !r.Platform.Valid() && r.Platform != PlatformDefault && r.Platform != PlatformBankTransfer:
		p.Add("platform", "must be paypal, venmo, cash_app, ach or default")
	case (r.Platform == PlatformACH || r.Platform == PlatformBankTransfer) && r.AccountID == "":
		p.Add("account_id", "is required for ach payouts")
	}
	p.id("account_id", r.AccountID, false)
	if !r.PayoutFeeParty.Valid() {
		p.Add("payout_fee_party", "must be user or platform")
	}
	p.metadata(r.Metadata)
	return p.Err()
}

// maxReasonLength bounds the reason an operator gives for a review.
const maxReasonLength = 500

// Validate checks the action and the length of the reason.
func (r ReviewTransferRequest) Validate() error {
	p := Problems{}
	if r.Action != ReviewRelease && r.Action != ReviewReject {
		p.Add("action", "must be release or reject")
	}
	p.maxLen("reason", r.Reason, maxReasonLength)
	p.maxLen("reviewer", r.Reviewer, maxReasonLength)
	return p.Err()
}
