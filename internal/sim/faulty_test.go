package sim

import (
	"context"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// errInjected is the failure faultyStore injects: a statement that did not run, as when the
// connection drops or the database refuses.
var errInjected = errors.New("sim: injected store failure")

// faultyStore is a service.Store whose next transaction can be made to fail at its Nth
// statement. Reads outside transactions are never failed: the invariant checks use them.
type faultyStore struct {
	service.Store
	// failAt is the statement (from 1) of the next transaction that fails; 0 fails none. The
	// transaction that reaches it disarms it.
	failAt int
	// fired counts the failures injected.
	fired int
}

func (s *faultyStore) InTx(ctx context.Context, fn func(q service.Queries) error) error {
	return s.InTxWith(ctx, service.Intent{}, fn)
}

func (s *faultyStore) InTxWith(ctx context.Context, intent service.Intent, fn func(q service.Queries) error) error {
	return s.Store.InTxWith(ctx, intent, func(q service.Queries) error {
		return fn(faultyQueries{Queries: q, store: s, count: new(int)})
	})
}

// faultyQueries counts the statements of one transaction and fails the armed one.
type faultyQueries struct {
	service.Queries
	store *faultyStore
	count *int
}

// statement counts one statement and says whether it fails.
func (q faultyQueries) statement() error {
	*q.count++
	if q.store.failAt == 0 || *q.count < q.store.failAt {
		return nil
	}
	q.store.failAt = 0
	q.store.fired++
	return errInjected
}

func (q faultyQueries) exec(run func() error) error {
	if err := q.statement(); err != nil {
		return err
	}
	return run()
}

func query[T any](q faultyQueries, run func() (T, error)) (T, error) {
	if err := q.statement(); err != nil {
		var zero T
		return zero, err
	}
	return run()
}

func (q faultyQueries) CreateApp(ctx context.Context, a *service.AppRecord) error {
	return q.exec(func() error { return q.Queries.CreateApp(ctx, a) })
}

func (q faultyQueries) GetApp(ctx context.Context, id string) (*service.AppRecord, error) {
	return query(q, func() (*service.AppRecord, error) { return q.Queries.GetApp(ctx, id) })
}

func (q faultyQueries) EnsureAccount(ctx context.Context, appID string, kind ledger.Kind, ref string) (*ledger.Account, error) {
	return query(q, func() (*ledger.Account, error) { return q.Queries.EnsureAccount(ctx, appID, kind, ref) })
}

func (q faultyQueries) Apply(ctx context.Context, p *service.Plan) error {
	return q.exec(func() error { return q.Queries.Apply(ctx, p) })
}

func (q faultyQueries) PostingsOfTransfers(ctx context.Context, appID string, transferIDs []string) ([]ledger.Posting, error) {
	return query(q, func() ([]ledger.Posting, error) { return q.Queries.PostingsOfTransfers(ctx, appID, transferIDs) })
}

func (q faultyQueries) CreateUser(ctx context.Context, u *service.UserRecord) error {
	return q.exec(func() error { return q.Queries.CreateUser(ctx, u) })
}

func (q faultyQueries) GetUser(ctx context.Context, appID, id string) (*service.UserRecord, error) {
	return query(q, func() (*service.UserRecord, error) { return q.Queries.GetUser(ctx, appID, id) })
}

func (q faultyQueries) UpdateUser(ctx context.Context, u *service.UserRecord) error {
	return q.exec(func() error { return q.Queries.UpdateUser(ctx, u) })
}

func (q faultyQueries) DeleteUser(ctx context.Context, appID, id string, at time.Time) error {
	return q.exec(func() error { return q.Queries.DeleteUser(ctx, appID, id, at) })
}

func (q faultyQueries) SaveVerification(ctx context.Context, v *service.VerificationRecord) error {
	return q.exec(func() error { return q.Queries.SaveVerification(ctx, v) })
}

func (q faultyQueries) DeleteVerification(ctx context.Context, appID, userID string) error {
	return q.exec(func() error { return q.Queries.DeleteVerification(ctx, appID, userID) })
}

func (q faultyQueries) SavePayoutMethod(ctx context.Context, m *service.PayoutMethodRecord) error {
	return q.exec(func() error { return q.Queries.SavePayoutMethod(ctx, m) })
}

func (q faultyQueries) ListPayoutMethods(ctx context.Context, appID string, userIDs ...string) ([]service.PayoutMethodRecord, error) {
	return query(q, func() ([]service.PayoutMethodRecord, error) {
		return q.Queries.ListPayoutMethods(ctx, appID, userIDs...)
	})
}

func (q faultyQueries) SetDefaultPayoutMethod(ctx context.Context, appID, userID, methodID string) error {
	return q.exec(func() error { return q.Queries.SetDefaultPayoutMethod(ctx, appID, userID, methodID) })
}

func (q faultyQueries) SaveTaxForm(ctx context.Context, f *service.TaxFormRecord) error {
	return q.exec(func() error { return q.Queries.SaveTaxForm(ctx, f) })
}

func (q faultyQueries) YearlyPayments(ctx context.Context, appID, userID string, year int) (payouts.Money, error) {
	return query(q, func() (payouts.Money, error) { return q.Queries.YearlyPayments(ctx, appID, userID, year) })
}

func (q faultyQueries) CreateTransfer(ctx context.Context, t *service.TransferRecord) error {
	return q.exec(func() error { return q.Queries.CreateTransfer(ctx, t) })
}

func (q faultyQueries) GetTransfer(ctx context.Context, appID, id string) (*service.TransferRecord, error) {
	return query(q, func() (*service.TransferRecord, error) { return q.Queries.GetTransfer(ctx, appID, id) })
}

func (q faultyQueries) UpdateTransfer(ctx context.Context, t *service.TransferRecord, from payouts.TransferStatus) error {
	return q.exec(func() error { return q.Queries.UpdateTransfer(ctx, t, from) })
}

func (q faultyQueries) ClaimDuePayouts(ctx context.Context, now, until time.Time, limit int) ([]service.TransferRecord, error) {
	return query(q, func() ([]service.TransferRecord, error) { return q.Queries.ClaimDuePayouts(ctx, now, until, limit) })
}

func (q faultyQueries) CreatePayoutLink(ctx context.Context, l *service.PayoutLinkRecord) error {
	return q.exec(func() error { return q.Queries.CreatePayoutLink(ctx, l) })
}

func (q faultyQueries) PayoutLinkByID(ctx context.Context, id string) (*service.PayoutLinkRecord, error) {
	return query(q, func() (*service.PayoutLinkRecord, error) { return q.Queries.PayoutLinkByID(ctx, id) })
}

func (q faultyQueries) UpdatePayoutLink(ctx context.Context, l *service.PayoutLinkRecord, from payouts.PayoutLinkStatus) error {
	return q.exec(func() error { return q.Queries.UpdatePayoutLink(ctx, l, from) })
}

func (q faultyQueries) CreateOutboundMessage(ctx context.Context, m *service.OutboundMessageRecord) error {
	return q.exec(func() error { return q.Queries.CreateOutboundMessage(ctx, m) })
}

func (q faultyQueries) ClaimDueMessages(ctx context.Context, now, until time.Time, id int64, max int) ([]service.OutboundMessageRecord, error) {
	return query(q, func() ([]service.OutboundMessageRecord, error) {
		return q.Queries.ClaimDueMessages(ctx, now, until, id, max)
	})
}

func (q faultyQueries) UpdateOutboundMessage(ctx context.Context, m *service.OutboundMessageRecord) error {
	return q.exec(func() error { return q.Queries.UpdateOutboundMessage(ctx, m) })
}

func (q faultyQueries) CreateFlow(ctx context.Context, f *service.FlowRecord) error {
	return q.exec(func() error { return q.Queries.CreateFlow(ctx, f) })
}

func (q faultyQueries) UpdateFlow(ctx context.Context, f *service.FlowRecord) error {
	return q.exec(func() error { return q.Queries.UpdateFlow(ctx, f) })
}

func (q faultyQueries) SaveMessage(ctx context.Context, m *service.MessageRecord) error {
	return q.exec(func() error { return q.Queries.SaveMessage(ctx, m) })
}

func (q faultyQueries) ClaimIdempotencyKey(ctx context.Context, k *service.IdempotencyRecord) (*service.IdempotencyRecord, error) {
	return query(q, func() (*service.IdempotencyRecord, error) { return q.Queries.ClaimIdempotencyKey(ctx, k) })
}

func (q faultyQueries) FinishIdempotencyKey(ctx context.Context, appID, key, resourceID string) error {
	return q.exec(func() error { return q.Queries.FinishIdempotencyKey(ctx, appID, key, resourceID) })
}

func (q faultyQueries) ReleaseIdempotencyKey(ctx context.Context, appID, key string) error {
	return q.exec(func() error { return q.Queries.ReleaseIdempotencyKey(ctx, appID, key) })
}

func (q faultyQueries) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	return query(q, func() (int64, error) { return q.Queries.PurgeIdempotencyKeys(ctx, before) })
}
