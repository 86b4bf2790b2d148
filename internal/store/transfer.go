package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const transferColumns = `seq, id, app_id, user_id, status, type, amount, platform, account_id, external_id,
	payout_link_id, metadata, failure_reason, idempotency_key, fee_party, fund, tax_exempt, settle_at, attempts,
	rail_state, lease_until, created, updated, rail_reference`

func scanTransfer(row interface{ Scan(...any) error }) (service.TransferRecord, error) {
	var t service.TransferRecord
	var userID, linkID, md sql.NullString
	var settleAt, leaseUntil, created, updated int64
	err := row.Scan(&t.Seq, &t.ID, &t.AppID, &userID, &t.Status, &t.Type, &t.Amount, &t.ExternalData.Platform,
		&t.ExternalData.AccountID, &t.ExternalData.ExternalID, &linkID, &md, &t.FailureReason, &t.IdempotencyKey,
		&t.FeeParty, &t.Fund, &t.TaxExempt, &settleAt, &t.Attempts, &t.RailState, &leaseUntil, &created, &updated, &t.RailReference)
	if err != nil {
		return t, noRecord(err)
	}
	t.UserID, t.PayoutLinkID, t.Metadata = stringPtr(userID), stringPtr(linkID), metadataOf(md)
	t.Created = payouts.NewTime(sqldb.FromMicros(created))
	t.Updated = sqldb.FromMicros(updated)
	if settleAt != 0 {
		t.SettleAt = sqldb.FromMicros(settleAt)
	}
	if leaseUntil != 0 {
		t.LeaseUntil = sqldb.FromMicros(leaseUntil)
	}
	return t, nil
}

// micros0 stores the zero time as 0.
func micros0(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// CreateTransfer inserts a transfer, whose row keeps the first step of its history (first_status,
// first_reason, created); in a write transaction it only holds it.
func (q *Queries) CreateTransfer(ctx context.Context, t *service.TransferRecord) (err error) {
	defer wrap(&err, "create transfer %s", t.ID)
	row := heldTransfer{record: heldCopy(t), to: t}
	if q.job != nil {
		q.job.st.held.transfers.hold(row)
		q.wrote(transferWriter.insert)
		return nil
	}
	return insertNow(ctx, q, transfersTable, transferWriter, []heldTransfer{row})
}

// heldTransfer is a transfer's row as it was when made, and the caller's record, handed its seq.
type heldTransfer struct {
	record service.TransferRecord
	to     *service.TransferRecord
}

// heldCopy is t as made: what the caller changes of its record later is not in its row.
func heldCopy(t *service.TransferRecord) service.TransferRecord {
	c := *t
	c.UserID, c.PayoutLinkID = clonePtr(t.UserID), clonePtr(t.PayoutLinkID)
	c.Metadata = slices.Clone(t.Metadata)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

var transferWriter = writer[heldTransfer]{
	insert: `INSERT INTO transfers (id, app_id, user_id, status, type, amount, platform, account_id,
	external_id, payout_link_id, metadata, failure_reason, idempotency_key, fee_party, fund, tax_exempt, settle_at,
	attempts, rail_state, lease_until, created, updated, rail_reference, first_status, first_reason)`,
	values: func(r *heldTransfer) []any {
		t := &r.record
		return []any{t.ID, t.AppID, sqlNullPtr(t.UserID), t.Status, t.Type, int64(t.Amount), t.ExternalData.Platform,
			t.ExternalData.AccountID, t.ExternalData.ExternalID, sqlNullPtr(t.PayoutLinkID), metadataValue(t.Metadata),
			t.FailureReason, t.IdempotencyKey, t.FeeParty, t.Fund, t.TaxExempt, micros0(t.SettleAt), t.Attempts,
			t.RailState, micros0(t.LeaseUntil), sqldb.Micros(t.Created.Time), sqldb.Micros(t.Updated), t.RailReference,
			t.Status, t.FailureReason}
	},
	key: func(r *heldTransfer, seq int64) { r.to.Seq = seq },
}

// GetTransfer reads one transfer of the app. It is found by its unique id alone and its app
// checked here, as GetUser does, so that PostgreSQL uses the id index before its first ANALYZE.
func (q *Queries) GetTransfer(ctx context.Context, appID, id string) (_ *service.TransferRecord, err error) {
	defer wrap(&err, "get transfer %s", id)
	return q.transferWhere(ctx, id, func(t *service.TransferRecord) bool { return t.AppID == appID })
}

// GetPayoutOnRail reads a payout on platform by its id alone, whatever its app: a rail's
// notification names our transfer id, never our app.
func (q *Queries) GetPayoutOnRail(ctx context.Context, platform payouts.Platform, id string) (_ *service.TransferRecord, err error) {
	defer wrap(&err, "get payout %s on %s", id, platform)
	return q.transferWhere(ctx, id, func(t *service.TransferRecord) bool {
		return t.Type == payouts.TransferPayout && t.ExternalData.Platform == platform
	})
}

// transferWhere reads (and on PostgreSQL locks) the transfer id, which is ErrNoRecord unless
// ours says it is the one asked for.
func (q *Queries) transferWhere(ctx context.Context, id string, ours func(*service.TransferRecord) bool) (*service.TransferRecord, error) {
	t, err := scanTransfer(q.queryRowLocked(ctx, reading(transfersTable), `SELECT `+transferColumns+` FROM transfers WHERE id = ?`, "", id))
	if err == nil && !ours(&t) {
		err = service.ErrNoRecord
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// UpdateTransfer writes a transfer's status and settlement fields, and its user once it has one
// (the claimer of a payout link, whose money the link's transfer moved), if it is still in status
// from: two workers can never both move the same transfer on.
func (q *Queries) UpdateTransfer(ctx context.Context, t *service.TransferRecord, from payouts.TransferStatus) (err error) {
	defer wrap(&err, "update transfer %s", t.ID)
	// By the unique id alone (t was read with its app, or made here): with app_id and status in
	// the WHERE, PostgreSQL may walk transfers_status, every pending payout of the app, when its
	// statistics say pending ones are few (TestByIDPlans).
	err = q.execOne(ctx, writing(transfersTable), `UPDATE transfers SET status = ?, external_id = ?, failure_reason = ?, settle_at = ?,
		attempts = ?, rail_state = ?, lease_until = ?, updated = ?, payout_link_id = ?, rail_reference = ?,
		user_id = COALESCE(user_id, ?) WHERE id = ? AND status = ?`,
		t.Status, t.ExternalData.ExternalID, t.FailureReason, micros0(t.SettleAt), t.Attempts, t.RailState,
		micros0(t.LeaseUntil), sqldb.Micros(t.Updated), sqlNullPtr(t.PayoutLinkID), t.RailReference, sqlNullPtr(t.UserID), t.ID, from)
	if err != nil || t.Status == from {
		return err
	}
	// transfer_events is neither held nor copied (and has no foreign key to a held row): the batch
	// view stays, for the batch's next jobs.
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO transfer_events (app_id, transfer_id, status, reason, at) VALUES (?, ?, ?, ?, ?)`,
		t.AppID, t.ID, t.Status, t.FailureReason, sqldb.Micros(t.Updated))
	return err
}

// UpdateClaimedPayout writes a pending payout's rail fields if it is still pending in rail state
// from with t.Attempts, that is still claimed by the caller; a claim another worker took over
// writes nothing and answers service.ErrNoRecord. The guard in the WHERE spares reading the row
// first; by the id alone, as UpdateTransfer (t was read with its app, or made here).
func (q *Queries) UpdateClaimedPayout(ctx context.Context, t *service.TransferRecord, from service.RailState) (err error) {
	defer wrap(&err, "update claimed payout %s", t.ID)
	return q.execOne(ctx, writing(transfersTable), `UPDATE transfers SET rail_state = ?, external_id = ?, failure_reason = ?, settle_at = ?,
		lease_until = ?, updated = ? WHERE id = ? AND status = ? AND rail_state = ? AND attempts = ?`,
		t.RailState, t.ExternalData.ExternalID, t.FailureReason, micros0(t.SettleAt), micros0(t.LeaseUntil), sqldb.Micros(t.Updated),
		t.ID, payouts.TransferPending, from, t.Attempts)
}

// TransferHistory reads the statuses a transfer took, oldest first.
func (q *Queries) TransferHistory(ctx context.Context, appID, id string) ([]payouts.StatusChange, error) {
	histories, err := q.TransferHistories(ctx, appID, []string{id})
	return histories[id], err
}

// TransferHistories reads the statuses each of the given transfers took, oldest first, in one
// query.
func (q *Queries) TransferHistories(ctx context.Context, appID string, ids []string) (_ map[string][]payouts.StatusChange, err error) {
	defer wrap(&err, "history of %d transfers", len(ids))
	out := make(map[string][]payouts.StatusChange, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	// The first step is the transfer's own row (id 0, before every later step), or, for a
	// transfer written before migration 0013, its first transfer_events row. Sorted here, not by
	// an ORDER BY id, which SQLite could answer by walking every event.
	query, args := transferHistoriesSQL(ids)
	rows, err := q.queryTouching(ctx, reading(transfersTable), query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type event struct {
		id       int64
		transfer string
		payouts.StatusChange
	}
	var events []event
	for rows.Next() {
		var e event
		var app string
		var at int64
		if err := rows.Scan(&e.id, &e.transfer, &app, &e.Status, &e.Reason, &at); err != nil {
			return nil, err
		}
		if app != appID {
			continue
		}
		e.At = payouts.NewTime(sqldb.FromMicros(at))
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(events, func(a, b event) int { return cmp.Compare(a.id, b.id) })
	for _, e := range events {
		out[e.transfer] = append(out[e.transfer], e.StatusChange)
	}
	return out, nil
}

// transferHistoriesSQL is the query of TransferHistories and its arguments. The rows are found
// by their ids alone and their app checked by the caller, as GetTransfer does: with app_id in the
// WHERE, both engines took an (app_id, ...) index before the first ANALYZE and read every
// transfer of the app for each page (TestTransferHistoriesPlan).
func transferHistoriesSQL(ids []string) (string, []any) {
	marks, args := idList(ids)
	return `SELECT 0, id, app_id, first_status, first_reason, created FROM transfers
			WHERE id IN (` + marks + `) AND first_status IS NOT NULL
		UNION ALL
		SELECT id, transfer_id, app_id, status, reason, at FROM transfer_events
			WHERE transfer_id IN (` + marks + `)`, append(args, args...)
}

// ListTransfers reads a page of the app's transfers, newest first.
func (q *Queries) ListTransfers(ctx context.Context, appID string, page payouts.Page, f payouts.TransferFilter) (_ []service.TransferRecord, _ bool, err error) {
	defer wrap(&err, "list transfers")
	l := listQuery{selectFrom: `SELECT ` + transferColumns + ` FROM transfers`, order: "seq",
		cursor: q.seqCursor("transfers", appID)}
	var match listQuery
	transferMatch(&match, f)
	if err := listRange(ctx, &l, appID, f.Range, match, q.createdIndexSeek("transfers", "seq")); err != nil {
		return nil, false, err
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (service.TransferRecord, error) { return scanTransfer(r) })
}

// pendingPayouts selects the rows of the partial index transfers_settle. It names its values as
// literals, the same as the index's WHERE: a plan that must hold for any bound value (a
// PostgreSQL generic plan) cannot use a partial index.
const pendingPayouts = `status = '` + string(payouts.TransferPending) + `' AND type = '` + string(payouts.TransferPayout) + `'`

// workerPayouts are the pending payouts the worker moves on: all but those waiting for an operator.
const workerPayouts = pendingPayouts + ` AND rail_state <> '` + string(service.RailNeedsOperator) + `'`

// ClaimDuePayouts claims up to limit pending payouts whose settle time has come and whose lease
// (if a worker took one) has run out, the longest due first, skipping rows other workers hold:
// each is given one more attempt and a lease until then, in one statement, and returned as
// claimed.
func (q *Queries) ClaimDuePayouts(ctx context.Context, now, until time.Time, limit int) (_ []service.TransferRecord, err error) {
	defer wrap(&err, "claim due payouts")
	var due []service.TransferRecord
	err = q.scanRows(ctx, writing(transfersTable), `UPDATE transfers SET attempts = attempts + 1, lease_until = ?, updated = ?
		WHERE id IN (SELECT id FROM transfers WHERE `+workerPayouts+` AND settle_at <= ? AND lease_until <= ?
			ORDER BY settle_at LIMIT ?`+q.skipLocked()+`)
		RETURNING `+transferColumns,
		[]any{sqldb.Micros(until), sqldb.Micros(now), sqldb.Micros(now), sqldb.Micros(now), limit},
		func(r *sql.Rows) error {
			t, err := scanTransfer(r)
			due = append(due, t)
			return err
		})
	// RETURNING promises no order.
	slices.SortFunc(due, func(a, b service.TransferRecord) int {
		return cmp.Or(a.SettleAt.Compare(b.SettleAt), cmp.Compare(a.ID, b.ID))
	})
	return due, err
}
