package service

import (
	"errors"
	"github.com/disburse/disburse/internal/sanctions"
	"time"

	"github.com/disburse/disburse/payouts"
)

// Records are the stored forms of the entities: what only the service and its store see
// (hashed keys, sealed secrets, bookkeeping). They never travel as JSON, so they live here and
// not in the wire vocabulary: the store implements the service's Store with them.

// ErrNoRecord is what a store answers for a row that does not exist or belongs to another app.
var ErrNoRecord = errors.New("no such record")

// ErrOverdraft is what a store answers when a guarded account would go below zero.
var ErrOverdraft = errors.New("overdraft")

// Kinds of AppRecord: an organization is kept as an app is, with credentials and a ledger of its
// own, so that its wallet is an ordinary ledger account.
const (
	KindApp          = "app"
	KindOrganization = "organization"
)

// AppRecord is an app, or an organization, with its hashed API key and sealed secrets.
type AppRecord struct {
	ID             string
	Kind           string
	OrganizationID string // an app's organization; "" for an organization or an app made before them
	Name           string
	ClientID       string
	Status         payouts.AppStatus
	Metadata       payouts.Metadata
	Seq            int64
	Created        time.Time

	// The bank account withdrawals go to, and the business's compliance details as sealed JSON.
	BankRouting      string
	BankAccountType  payouts.AccountType
	BankLast4        string
	BankSealed       []byte
	ComplianceSealed []byte
}

// APIKeyRecord is one of an app's (or an organization's) API keys as stored. Times not set are
// zero.
type APIKeyRecord struct {
	ID        string
	AppID     string
	Name      string
	Last4     string
	KeyHash   []byte // SHA-256 of the key: keys are long random strings, so a fast hash is enough
	CreatedBy string
	Created   time.Time
	Expires   time.Time
	Revoked   time.Time
	LastUsed  time.Time
}

// UserRecord is a user as stored, with wallet and ledger bits filled in by reads.
type UserRecord struct {
	payouts.User
	AppID   string
	Seq     int64 // insertion order, the keyset for pagination
	Deleted bool
	// Unproven is the contact a payee typed without proving it when a hosted page created the
	// user ("phone" or "email"): no look-up of a payee by contact matches it, and no code goes to
	// it. Empty for users an operator created, whose contacts the operator vouches for.
	Unproven string
}

// The values of UserRecord.Unproven.
const (
	unprovenPhone = "phone"
	unprovenEmail = "email"
)

// VerificationRecord is an outstanding phone verification token, hashed.
type VerificationRecord struct {
	AppID     string
	UserID    string
	TokenHash []byte
	Expires   time.Time
	Attempts  int
}

// PayoutMethodRecord is a payout method with its sealed secrets.
type PayoutMethodRecord struct {
	payouts.PayoutMethod
	AppID         string
	UserID        string
	Fingerprint   string // keyed hash of the identifying value, so re-adding a method updates it
	RoutingNumber string
	AccountType   payouts.AccountType
	SealedAccount []byte // account number, AES-GCM sealed
}

// TaxFormRecord is a W-9 or W-8BEN, sealed as a whole, with the flags it sets.
type TaxFormRecord struct {
	AppID    string
	UserID   string
	Kind     string // "w9" or "w8ben"
	Sealed   []byte // the form as JSON, AES-GCM sealed
	TINLast4 string
	Created  time.Time
}

// TransferRecord is a transfer as stored; Transactions is filled by GetTransfer.
type TransferRecord struct {
	payouts.Transfer
	AppID          string
	Seq            int64
	IdempotencyKey string
	// Payout bookkeeping of the rail worker (submission.go): where the payout is with its rail,
	// when the worker next acts on it, and the lease of the worker calling the rail for it.
	RailState  RailState
	SettleAt   time.Time
	LeaseUntil time.Time
	Attempts   int // claims so far; a worker's claim is still its own while this is unchanged
	FeeParty   payouts.FeeParty
	Fund       bool
	Updated    time.Time
	// RailReference is the payout's id in the provider's reports when that is not its rail id
	// (ExternalData.ExternalID): PayPal's transaction id, learned from an outcome
	// (RailOutcome.Reference); reconciliation matches the provider's items by it.
	RailReference string
}

// IdempotencyRecord remembers a request made with an idempotency key for 24 hours.
type IdempotencyRecord struct {
	AppID       string
	Key         string
	Operation   string // "transfer", "payout", "payout-link", "deposit"
	RequestHash string
	ResourceID  string // set when the first request finished
	Created     time.Time
}

// PayoutLinkRecord is a payout link as stored.
type PayoutLinkRecord struct {
	payouts.PayoutLink
	AppID           string
	Seq             int64
	ForceCompliance bool
	Updated         time.Time
}

// FlowRecord is a hosted flow as stored.
type FlowRecord struct {
	payouts.Flow
	AppID string
	Seq   int64
}

// MessageRecord is an SMS or email the sandbox notifier kept instead of sending.
type MessageRecord struct {
	ID      int64
	AppID   string
	Channel string // sms, voice or email
	To      string
	Subject string
	Body    string // sealed with the service's key, base64: see SealMessage
	Created time.Time
}

// OrganizationTransferRecord is an organization transfer as stored.
type OrganizationTransferRecord struct {
	payouts.OrganizationTransfer
	Seq            int64
	IdempotencyKey string
}

// PayoutRequestRecord is a payout request as stored; the service embeds its user and link.
type PayoutRequestRecord struct {
	payouts.PayoutRequest
	AppID        string
	Seq          int64
	UserID       *string
	PayoutLinkID *string
	Updated      time.Time
}

// TransferBatchRecord is a transfer batch with its items.
type TransferBatchRecord struct {
	payouts.TransferBatch
	AppID          string
	Seq            int64
	IdempotencyKey string
	Updated        time.Time
}

// BatchItemOutcome is what one item of a batch made: TransferID, or Error.
type BatchItemOutcome struct {
	Position   int
	TransferID string
	Error      string
}

// SanctionsListRecord is one load of OFAC's lists (sanctions.Load): Version is the SHA-256 of
// its files. Entries are kept for the newest load alone, and read apart (SanctionsEntries).
type SanctionsListRecord struct {
	ID         int64
	Version    string
	Source     string
	EntryCount int
	Entries    []sanctions.Entry
	Loaded     time.Time
}

// SanctionsHitRecord is a payee's match against an entry of one load of the lists, scored at
// or over the threshold, and the operator's release of it (ReleasedAt nil until then).
type SanctionsHitRecord struct {
	AppID         string
	UserID        string
	ListID        int64
	EntryUID      string
	List          string
	EntryName     string
	MatchedName   string
	Programs      []string
	Score         float64
	Created       time.Time
	ReleasedBy    string
	ReleaseReason string
	ReleasedAt    *time.Time
}
