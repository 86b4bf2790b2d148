package service

import (
	"context"
	"time"

	"disburse/ledger"
	"disburse/payouts"
)

// Store is what the service needs of a database. Reads run outside any transaction; InTx runs
// fn in one write transaction that takes the write lock at its start (SQLite) or row locks as it
// goes (PostgreSQL), so a money movement is all or nothing. Q is the store's own transaction
// type, so a store implements this without importing the service.
type Store[Q Queries] interface {
	Queries
	InTx(ctx context.Context, fn func(q Q) error) error
}

// txStore is a Store with its transaction type forgotten, as the service holds it.
type txStore interface {
	Queries
	InTx(ctx context.Context, fn func(q Queries) error) error
}

type anyStore[Q Queries] struct{ Store[Q] }

func (s anyStore[Q]) InTx(ctx context.Context, fn func(q Queries) error) error {
	return s.Store.InTx(ctx, func(q Q) error { return fn(q) })
}

// Queries are the statements of the store. A row that does not exist, or belongs to another app,
// is payouts.ErrNoRecord; an overdraft refused by ApplyDeltas is payouts.ErrOverdraft. Each takes the app id so that one app can never read
// or touch another's rows.
type Queries interface {
	// Apps
	CreateApp(ctx context.Context, a *payouts.AppRecord) error
	GetApp(ctx context.Context, id string) (*payouts.AppRecord, error)
	AppByClientID(ctx context.Context, clientID string) (*payouts.AppRecord, error)
	ListApps(ctx context.Context) ([]payouts.AppRecord, error)

	// Ledger
	EnsureAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (*ledger.Account, error)
	FindAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (*ledger.Account, error)
	ApplyDeltas(ctx context.Context, deltas []ledger.Delta) error
	InsertPosting(ctx context.Context, p *ledger.Posting) error
	SetPostingState(ctx context.Context, id int64, from, to ledger.State) error
	PostingsOfTransfers(ctx context.Context, appID string, transferIDs []string) ([]ledger.Posting, error)
	LedgerSnapshot(ctx context.Context, appID string) ([]ledger.Account, []ledger.Posting, error)

	// Users
	CreateUser(ctx context.Context, u *payouts.UserRecord) error
	GetUser(ctx context.Context, appID, id string) (*payouts.UserRecord, error)
	ListUsers(ctx context.Context, appID string, page payouts.Page, f payouts.UserFilter) ([]payouts.UserRecord, bool, error)
	UpdateUser(ctx context.Context, u *payouts.UserRecord) error
	FindUserByContact(ctx context.Context, appID, email, countryCode, phone string) (*payouts.UserRecord, error)
	DeleteUser(ctx context.Context, appID, id string, at time.Time) error

	// Verification tokens
	SaveVerification(ctx context.Context, v *payouts.VerificationRecord) error
	GetVerification(ctx context.Context, appID, userID string) (*payouts.VerificationRecord, error)
	DeleteVerification(ctx context.Context, appID, userID string) error

	// Payout methods
	SavePayoutMethod(ctx context.Context, m *payouts.PayoutMethodRecord) error
	ListPayoutMethods(ctx context.Context, appID, userID string) ([]payouts.PayoutMethodRecord, error)
	SetDefaultPayoutMethod(ctx context.Context, appID, userID, methodID string) error

	// Compliance
	SaveTaxForm(ctx context.Context, f *payouts.TaxFormRecord) error
	AddYearlyPayments(ctx context.Context, appID, userID string, year int, amount payouts.Money) (payouts.Money, error)
	YearlyPayments(ctx context.Context, appID, userID string, year int) (payouts.Money, error)

	// Transfers and transactions
	CreateTransfer(ctx context.Context, t *payouts.TransferRecord) error
	GetTransfer(ctx context.Context, appID, id string) (*payouts.TransferRecord, error)
	UpdateTransfer(ctx context.Context, t *payouts.TransferRecord, from payouts.TransferStatus) error
	TransferHistory(ctx context.Context, appID, id string) ([]payouts.StatusChange, error)
	DailyVolumes(ctx context.Context, appID string, since time.Time) (map[string]payouts.DailyVolume, error)
	CountTransfers(ctx context.Context, appID string, f payouts.TransferFilter, since time.Time) (int, error)
	// ClaimDuePayout locks and returns one pending payout whose settle time has come, skipping
	// rows other workers hold; none is payouts.ErrNoRecord.
	ClaimDuePayout(ctx context.Context, now time.Time) (*payouts.TransferRecord, error)
	ListTransfers(ctx context.Context, appID string, page payouts.Page, f payouts.TransferFilter) ([]payouts.TransferRecord, bool, error)
	GetTransaction(ctx context.Context, appID string, id int64) (*ledger.Posting, error)
	ListTransactions(ctx context.Context, appID string, page payouts.Page, f payouts.TransactionFilter) ([]ledger.Posting, bool, error)

	// Payout links
	CreatePayoutLink(ctx context.Context, l *payouts.PayoutLinkRecord) error
	GetPayoutLink(ctx context.Context, appID, id string) (*payouts.PayoutLinkRecord, error)
	PayoutLinkByID(ctx context.Context, id string) (*payouts.PayoutLinkRecord, error)
	UpdatePayoutLink(ctx context.Context, l *payouts.PayoutLinkRecord, from payouts.PayoutLinkStatus) error
	ListPayoutLinks(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutLinkFilter) ([]payouts.PayoutLinkRecord, bool, error)
	ClaimDueDelivery(ctx context.Context, now time.Time) (*payouts.PayoutLinkRecord, error)

	// Flows
	CreateFlow(ctx context.Context, f *payouts.FlowRecord) error
	GetFlow(ctx context.Context, appID, id string) (*payouts.FlowRecord, error)
	FlowByID(ctx context.Context, id string) (*payouts.FlowRecord, error)
	UpdateFlow(ctx context.Context, f *payouts.FlowRecord) error
	ListFlows(ctx context.Context, appID string, page payouts.Page) ([]payouts.FlowRecord, bool, error)

	// Sandbox inbox
	SaveMessage(ctx context.Context, m *payouts.MessageRecord) error
	ListMessages(ctx context.Context, appID string, limit int) ([]payouts.MessageRecord, error)

	// Idempotency
	ClaimIdempotencyKey(ctx context.Context, k *payouts.IdempotencyRecord) (*payouts.IdempotencyRecord, error)
	FinishIdempotencyKey(ctx context.Context, appID, key, resourceID string) error
	ReleaseIdempotencyKey(ctx context.Context, appID, key string) error
	PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)
}
