package service

import (
	"context"
	"github.com/disburse/disburse/internal/sanctions"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// Store is what the service needs of a database. Its Reads run outside any transaction; every
// write runs inside InTx, which runs fn in one write transaction that takes the write lock at its start (SQLite) or row locks as it
// goes (PostgreSQL), so a money movement is all or nothing.
type Store interface {
	Reads
	InTx(ctx context.Context, fn func(q Queries) error) error
	// InTxWith is InTx for a write that says beforehand what it will read and claim. A wrapper
	// of a Store implements both, InTx as InTxWith with no Intent.
	InTxWith(ctx context.Context, intent Intent, fn func(q Queries) error) error
}

// Intent is what a write says, before it runs, it will read and claim: a store that shares one
// transaction among many callers' writes may read the users and claim the idempotency keys of
// all of them in one statement. Saying so is never needed: a user not said is read when asked
// for, a key not said is claimed when claimed. The claim answered for KeyToClaim is that record's,
// so a claim with anything else of it different (another operation, request or resource) is not
// answered from it.
type Intent struct {
	UsersToRead []string           // read with Queries.GetUser
	KeyToClaim  *IdempotencyRecord // claimed with Queries.ClaimIdempotencyKey
}

// Queries are the statements of one write transaction (Store.InTx): everything the store
// reads and writes. A row that does not exist, or belongs to another app, is ErrNoRecord; an
// overdraft refused by Post is ErrOverdraft. Each takes the app id so that one app can
// never read or touch another's rows. Writes exist only here: outside a transaction a Store
// offers its Reads alone.
type Queries interface {
	Reads
	Writes
}

// Reads are the statements that change nothing, one interface per noun. Inside a transaction
// they see its writes (and on PostgreSQL GetUser locks the user it reads).
type Reads interface {
	AppReads
	LedgerReads
	UserReads
	TransferReads
	RequestReads
	EventReads
	KeyCheckReads
	SanctionsReads
	TaxReads
}

// Writes are the statements that change rows, one interface per noun; only a transaction's
// Queries have them.
type Writes interface {
	AppWrites
	PlanWrites
	LedgerWrites
	UserWrites
	TransferWrites
	RequestWrites
	EventWrites
	KeyWrites
	KeyCheckWrites
	SanctionsWrites
	TaxWrites
}

// AppReads read apps and organizations.
type AppReads interface {
	GetApp(ctx context.Context, id string) (*AppRecord, error)
	AppByClientID(ctx context.Context, clientID string) (*AppRecord, error)
	ListApps(ctx context.Context) ([]AppRecord, error)
	ListOrganizations(ctx context.Context) ([]AppRecord, error)
	ListOrganizationApps(ctx context.Context, orgID string, page payouts.Page) ([]AppRecord, bool, error)
	// APIKeyByHash reads the API key whose SHA-256 is hash, of any app.
	APIKeyByHash(ctx context.Context, hash []byte) (*APIKeyRecord, error)
	GetAPIKey(ctx context.Context, appID, id string) (*APIKeyRecord, error)
	// ListAPIKeys reads every key of an app, newest first.
	ListAPIKeys(ctx context.Context, appID string) ([]APIKeyRecord, error)
	// AppMetrics counts an app's users and sums what left it on rails.
	AppMetrics(ctx context.Context, appID string) (users int, moneyOut payouts.Money, err error)
	// Organization transfers: orgID is the organization's id.
	GetOrganizationTransfer(ctx context.Context, orgID, id string) (*OrganizationTransferRecord, error)
	ListOrganizationTransfers(ctx context.Context, orgID string, page payouts.Page) ([]OrganizationTransferRecord, bool, error)
}

// AppWrites write apps and organizations.
type AppWrites interface {
	CreateApp(ctx context.Context, a *AppRecord) error
	UpdateApp(ctx context.Context, a *AppRecord) error
	CreateAPIKey(ctx context.Context, k *APIKeyRecord) error
	// UpdateAPIKey writes a key's expiry and revocation.
	UpdateAPIKey(ctx context.Context, k *APIKeyRecord) error
	// TouchAPIKey writes a key's last use, alone, so that it never undoes a revocation.
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
	CreateOrganizationTransfer(ctx context.Context, t *OrganizationTransferRecord) error
}

// LedgerReads read accounts and postings.
type LedgerReads interface {
	FindAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (*ledger.Account, error)
	// AppWalletID is the id of the app's wallet account, 0 when it has none yet; it locks nothing.
	AppWalletID(ctx context.Context, appID string) (int64, error)
	PostingsOfTransfers(ctx context.Context, appID string, transferIDs []string) ([]ledger.Posting, error)
	LedgerSnapshot(ctx context.Context, appID string) ([]ledger.Account, []ledger.Posting, error)
	// LedgerAudit reads what CheckLedger verifies, as of one moment, and checks the app's chain
	// under the store's key.
	LedgerAudit(ctx context.Context, appID string) (LedgerAudit, error)
	GetTransaction(ctx context.Context, appID string, id int64) (*ledger.Posting, error)
	ListTransactions(ctx context.Context, appID string, page payouts.Page, f payouts.TransactionFilter) ([]ledger.Posting, bool, error)
	SummarizeTransactions(ctx context.Context, appID string, f payouts.TransactionFilter) (payouts.Summary, error)
	// Statement reads the balance of an account of the app as of from and, oldest first, at most
	// limit of the lines posted to it in [from, to).
	Statement(ctx context.Context, appID string, account int64, from, to time.Time, limit int) (opening int64, lines []ledger.Posting, err error)
}

// LedgerWrites move money: accounts, their balances and postings.
type LedgerWrites interface {
	// EnsureAccount is written at once, before the plan that posts to the account: a decision
	// needs the account's id (the one write a refused plan leaves, WRITE_PATH.md).
	EnsureAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (*ledger.Account, error)
}

// UserReads read users and what belongs to them.
type UserReads interface {
	GetUser(ctx context.Context, appID, id string) (*UserRecord, error)
	ListUsers(ctx context.Context, appID string, page payouts.Page, f payouts.UserFilter) ([]UserRecord, bool, error)
	// FindUsersByProvenPhone and FindUserByProvenEmail find payees by a contact they proved, or
	// an operator gave: never by one a payee only typed (UserRecord.Unproven).
	FindUsersByProvenPhone(ctx context.Context, appID string, phone payouts.Phone) ([]UserRecord, error)
	FindUserByProvenEmail(ctx context.Context, appID, email string) (*UserRecord, error)
	GetVerification(ctx context.Context, appID, userID string) (*VerificationRecord, error)
	// LatestTaxForm reads the user's tax form in force, the latest filed; not-found with none.
	LatestTaxForm(ctx context.Context, appID, userID string) (*TaxFormRecord, error)
	// ListPayoutMethods reads the methods of the app's users userIDs, newest first, each
	// user's default marked.
	ListPayoutMethods(ctx context.Context, appID string, userIDs ...string) ([]PayoutMethodRecord, error)
	// YearlyPayments reads what plans added to the user's 1099 total (Plan.Payments), 0 for
	// none; in a transaction, with what its batch added so far.
	YearlyPayments(ctx context.Context, appID, userID string, year int) (payouts.Money, error)
	// LookUpIDs finds the ids of users, payout links, transfers and flows whose short id is text or that begin with it.
	LookUpIDs(ctx context.Context, appID, text string, limit int) (payouts.IDLookup, error)
}

// UserWrites write users, their verification tokens, payout methods and tax records.
type UserWrites interface {
	CreateUser(ctx context.Context, u *UserRecord) error
	UpdateUser(ctx context.Context, u *UserRecord) error
	DeleteUser(ctx context.Context, appID, id string, at time.Time) error
	SaveVerification(ctx context.Context, v *VerificationRecord) error
	DeleteVerification(ctx context.Context, appID, userID string) error
	SavePayoutMethod(ctx context.Context, m *PayoutMethodRecord) error
	SetDefaultPayoutMethod(ctx context.Context, appID, userID, methodID string) error
	SaveTaxForm(ctx context.Context, f *TaxFormRecord) error
}

// TransferReads read transfers and transfer batches. GetTransferBatch reads the items too;
// lists do not.
type TransferReads interface {
	GetTransfer(ctx context.Context, appID, id string) (*TransferRecord, error)
	// GetPayoutOnRail reads a payout on platform by its id alone, whatever its app: a rail's
	// notification names our transfer id, never our app.
	GetPayoutOnRail(ctx context.Context, platform payouts.Platform, id string) (*TransferRecord, error)
	TransferHistory(ctx context.Context, appID, id string) ([]payouts.StatusChange, error)
	TransferHistories(ctx context.Context, appID string, ids []string) (map[string][]payouts.StatusChange, error)
	DailyVolumes(ctx context.Context, appID string, bounds []time.Time) ([]payouts.DailyVolume, error)
	CountTransfers(ctx context.Context, appID string, f payouts.TransferFilter, since time.Time) (int, error)
	ListTransfers(ctx context.Context, appID string, page payouts.Page, f payouts.TransferFilter) ([]TransferRecord, bool, error)
	// SummarizeTransfers counts the rows a list filter matches and sums the money they moved.
	SummarizeTransfers(ctx context.Context, appID string, f payouts.TransferFilter) (payouts.Summary, error)
	GetTransferBatch(ctx context.Context, appID, id string) (*TransferBatchRecord, error)
	ListTransferBatches(ctx context.Context, appID string, page payouts.Page) ([]TransferBatchRecord, bool, error)
}

// TransferWrites write transfers and transfer batches, and claim the ones due for work.
type TransferWrites interface {
	CreateTransfer(ctx context.Context, t *TransferRecord) error
	UpdateTransfer(ctx context.Context, t *TransferRecord, from payouts.TransferStatus) error
	// UpdateClaimedPayout writes t's rail state, external id, settle time and lease if t is still
	// pending in rail state from with t.Attempts (still the caller's claim), else ErrNoRecord.
	UpdateClaimedPayout(ctx context.Context, t *TransferRecord, from RailState) error
	// ClaimDuePayouts claims up to limit pending payouts whose settle time has come, longest due
	// first, skipping those another worker holds: one more attempt each, leased until then, and
	// returns them as claimed.
	ClaimDuePayouts(ctx context.Context, now, until time.Time, limit int) ([]TransferRecord, error)
	CreateTransferBatch(ctx context.Context, b *TransferBatchRecord) error
	// ClaimPendingBatch locks and returns the oldest pending batch with its items, skipping
	// batches other workers hold; none is ErrNoRecord.
	ClaimPendingBatch(ctx context.Context) (*TransferBatchRecord, error)
	// SetBatchItemOutcomes records what items of a batch made: a transfer, or an error.
	SetBatchItemOutcomes(ctx context.Context, batchID string, outcomes []BatchItemOutcome) error
	FinishTransferBatch(ctx context.Context, b *TransferBatchRecord) error
}

// RequestReads read payout links, flows and payout requests.
type RequestReads interface {
	GetPayoutLink(ctx context.Context, appID, id string) (*PayoutLinkRecord, error)
	PayoutLinkByID(ctx context.Context, id string) (*PayoutLinkRecord, error)
	ListPayoutLinks(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutLinkFilter) ([]PayoutLinkRecord, bool, error)
	GetFlow(ctx context.Context, appID, id string) (*FlowRecord, error)
	FlowByID(ctx context.Context, id string) (*FlowRecord, error)
	ListFlows(ctx context.Context, appID string, page payouts.Page, f payouts.FlowFilter) ([]FlowRecord, bool, error)
	GetPayoutRequest(ctx context.Context, appID, id string) (*PayoutRequestRecord, error)
	ListPayoutRequests(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutRequestFilter) ([]PayoutRequestRecord, bool, error)
	CountPayoutRequests(ctx context.Context, appID string, f payouts.PayoutRequestFilter) (int64, error)
}

// RequestWrites write payout links, flows and payout requests.
type RequestWrites interface {
	CreatePayoutLink(ctx context.Context, l *PayoutLinkRecord) error
	UpdatePayoutLink(ctx context.Context, l *PayoutLinkRecord, from payouts.PayoutLinkStatus) error
	UpdatePayoutLinkPayee(ctx context.Context, l *PayoutLinkRecord, from payouts.PayoutLinkStatus) error
	CreateFlow(ctx context.Context, f *FlowRecord) error
	UpdateFlow(ctx context.Context, f *FlowRecord) error
	CreatePayoutRequest(ctx context.Context, r *PayoutRequestRecord) error
	UpdatePayoutRequest(ctx context.Context, r *PayoutRequestRecord, from payouts.PayoutRequestStatus) error
}

// EventReads read events, webhooks and the sandbox inbox.
type EventReads interface {
	GetEvent(ctx context.Context, appID, id string) (*EventRecord, error)
	ListEvents(ctx context.Context, appID string, page payouts.Page, f payouts.EventFilter) ([]EventRecord, bool, error)
	GetWebhookEndpoint(ctx context.Context, appID, id string) (*WebhookEndpointRecord, error)
	ListWebhookEndpoints(ctx context.Context, appID string) ([]WebhookEndpointRecord, error)
	ListWebhookAttempts(ctx context.Context, appID, endpointID, eventID string, page payouts.Page) ([]WebhookAttemptRecord, bool, error)
	CountPendingWebhookDeliveries(ctx context.Context) (int, error)
	ListMessages(ctx context.Context, appID string, beforeID int64, limit int) ([]MessageRecord, error)
	GetOutboundMessage(ctx context.Context, id int64) (*OutboundMessageRecord, error)
	// ListOutboundMessages reads the newest outbox messages to a user, at most limit.
	ListOutboundMessages(ctx context.Context, appID, userID string, limit int) ([]OutboundMessageRecord, error)
}

// KeyCheckReads read what tells which encryption key the database's sealed values are under
// (keycheck.go).
type KeyCheckReads interface {
	// KeyCheck is the check value of the key; ErrNoRecord before one is recorded.
	KeyCheck(ctx context.Context) ([]byte, error)
	// SealedSamples are the oldest sealed value of each kind the database keeps.
	SealedSamples(ctx context.Context) ([]SealedValue, error)
}

// KeyCheckWrites record the check value of the encryption key.
type KeyCheckWrites interface {
	// RecordKeyCheck records sealed unless a check value is recorded already.
	RecordKeyCheck(ctx context.Context, sealed []byte) error
}

// EventWrites write webhooks and their deliveries, and the sandbox inbox; events and their first
// deliveries are written by plans (PlanWrites).
type EventWrites interface {
	CreateWebhookEndpoint(ctx context.Context, e *WebhookEndpointRecord) error
	UpdateWebhookEndpoint(ctx context.Context, e *WebhookEndpointRecord) error
	DeleteWebhookEndpoint(ctx context.Context, appID, id string) error
	ClearWebhookFailures(ctx context.Context, endpointID string) error
	// ClaimDueWebhookDeliveries leases up to max pending deliveries due at now, until until,
	// skipping rows other workers hold, disabled endpoints, and any delivery behind an older
	// pending one of the same object to the same endpoint.
	ClaimDueWebhookDeliveries(ctx context.Context, now, until time.Time, max int) ([]WebhookDeliveryRecord, error)
	FinishWebhookDelivery(ctx context.Context, d *WebhookDeliveryRecord, a *WebhookAttemptRecord) error
	RequeueFailedWebhookDeliveries(ctx context.Context, endpointID string, since, at time.Time) (int, error)
	// WebhookDeliveryPending reports whether the event's delivery to the endpoint is pending.
	WebhookDeliveryPending(ctx context.Context, endpointID, eventID string) (bool, error)
	SaveMessage(ctx context.Context, m *MessageRecord) error
	// CreateOutboundMessage queues a message in the outbox and sets its id.
	CreateOutboundMessage(ctx context.Context, m *OutboundMessageRecord) error
	// ClaimDueMessages leases until until up to max queued messages due at now (only message
	// id, when not 0), counting a try of each, skipping rows other workers hold.
	ClaimDueMessages(ctx context.Context, now, until time.Time, id int64, max int) ([]OutboundMessageRecord, error)
	// UpdateOutboundMessage records a message's status, tries, next try, provider and error.
	UpdateOutboundMessage(ctx context.Context, m *OutboundMessageRecord) error
	// DropQueuedMessages fails the queued messages of a payout link, for reason.
	DropQueuedMessages(ctx context.Context, appID, linkID, reason string, now time.Time) error
}

// KeyWrites claim idempotency keys and count rates.
type KeyWrites interface {
	ClaimIdempotencyKey(ctx context.Context, k *IdempotencyRecord) (*IdempotencyRecord, error)
	FinishIdempotencyKey(ctx context.Context, appID, key, resourceID string) error
	// FinishIdempotencyKeys records, in one round trip, the resource of each of keys.
	FinishIdempotencyKeys(ctx context.Context, appID string, keys []string, resourceIDs map[string]string) error
	// ClaimIdempotencyKeys takes, in one round trip per few hundred, the free ones of keys and
	// returns them; taken keys are left for ClaimIdempotencyKey to answer.
	ClaimIdempotencyKeys(ctx context.Context, keys []IdempotencyRecord) ([]string, error)
	ReleaseIdempotencyKey(ctx context.Context, appID, key string) error
	ReleaseIdempotencyKeys(ctx context.Context, appID string, keys []string) error
	PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)
	// Rate counts (RateLimiter): events per key in fixed windows, shared by every process on
	// the database. CountRate counts one event of key at now and returns its window's count and
	// end, starting a window of per when none is open; PurgeRateCounts deletes the windows ended
	// by now.
	CountRate(ctx context.Context, key string, now time.Time, per time.Duration) (int, time.Time, error)
	PurgeRateCounts(ctx context.Context, now time.Time) (int64, error)
}

// SanctionsReads read the loaded sanctions lists, the payees to screen and their hits
// (sanctions.go).
type SanctionsReads interface {
	// CurrentSanctionsList is the list loaded last, without its entries; ErrNoRecord before any.
	CurrentSanctionsList(ctx context.Context) (*SanctionsListRecord, error)
	SanctionsEntries(ctx context.Context, listID int64) ([]sanctions.Entry, error)
	// SanctionsHits are the user's hits against the list listID, best score first.
	SanctionsHits(ctx context.Context, appID, userID string, listID int64) ([]SanctionsHitRecord, error)
	// ScreeningPayees are every user of every app, not deleted: their app, id and names.
	ScreeningPayees(ctx context.Context) ([]UserRecord, error)
}

// SanctionsWrites store loaded lists and hits.
type SanctionsWrites interface {
	// SaveSanctionsList stores a load, setting its ID, and drops the entries of older loads.
	SaveSanctionsList(ctx context.Context, l *SanctionsListRecord) error
	// SaveSanctionsHits stores hits; one stored already (same user, list and entry) is kept.
	SaveSanctionsHits(ctx context.Context, hits []SanctionsHitRecord) error
	// ReleaseSanctionsHit records the release of a stored hit.
	ReleaseSanctionsHit(ctx context.Context, h *SanctionsHitRecord) error
}
