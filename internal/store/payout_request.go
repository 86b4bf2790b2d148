package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const payoutRequestColumns = `seq, id, app_id, amount, status, user_id, payee_first_name, payee_last_name,
	payee_email, payee_country, payee_phone, payout_link_id, transfer_id, memo, metadata, reject_reason, created, updated`

func scanPayoutRequest(row interface{ Scan(...any) error }) (service.PayoutRequestRecord, error) {
	var r service.PayoutRequestRecord
	var userID, linkID, transferID, md sql.NullString
	var created, updated int64
	err := row.Scan(&r.Seq, &r.ID, &r.AppID, &r.Amount, &r.Status, &userID, &r.Payee.FirstName, &r.Payee.LastName,
		&r.Payee.Email, &r.Payee.CountryCode, &r.Payee.PhoneNumber, &linkID, &transferID, &r.Memo, &md, &r.RejectReason,
		&created, &updated)
	if err != nil {
		return r, noRecord(err)
	}
	r.UserID, r.PayoutLinkID, r.TransferID = stringPtr(userID), stringPtr(linkID), stringPtr(transferID)
	r.Metadata = metadataOf(md)
	r.Created, r.Updated = payouts.NewTime(sqldb.FromMicros(created)), sqldb.FromMicros(updated)
	return r, nil
}

// CreatePayoutRequest inserts a payout request.
func (q *Queries) CreatePayoutRequest(ctx context.Context, r *service.PayoutRequestRecord) (err error) {
	defer wrap(&err, "create payout request %s", r.ID)
	return q.queryRowTouching(ctx, writingOthers, `INSERT INTO payout_requests (id, app_id, amount, status, user_id, payee_first_name,
		payee_last_name, payee_email, payee_country, payee_phone, memo, metadata, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		r.ID, r.AppID, int64(r.Amount), r.Status, sqlNullPtr(r.UserID), r.Payee.FirstName, r.Payee.LastName,
		r.Payee.Email, r.Payee.CountryCode, r.Payee.PhoneNumber, r.Memo, metadataValue(r.Metadata),
		sqldb.Micros(r.Created.Time), sqldb.Micros(r.Updated)).Scan(&r.Seq)
}

// GetPayoutRequest reads one payout request of the app, by its id alone and its app checked
// here, as GetTransfer does.
func (q *Queries) GetPayoutRequest(ctx context.Context, appID, id string) (_ *service.PayoutRequestRecord, err error) {
	defer wrap(&err, "get payout request %s", id)
	r, err := scanPayoutRequest(q.queryRowLocked(ctx, readingOthers, `SELECT `+payoutRequestColumns+` FROM payout_requests
		WHERE id = ?`, "", id))
	if err == nil && r.AppID != appID {
		err = service.ErrNoRecord
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdatePayoutRequest writes a request's outcome if it is still in status from, so a request is
// approved or rejected once. It names the id, not the app, as UpdateTransfer does.
func (q *Queries) UpdatePayoutRequest(ctx context.Context, r *service.PayoutRequestRecord, from payouts.PayoutRequestStatus) (err error) {
	defer wrap(&err, "update payout request %s", r.ID)
	return q.execOne(ctx, writingOthers, `UPDATE payout_requests SET status = ?, payout_link_id = ?, transfer_id = ?,
		reject_reason = ?, updated = ? WHERE id = ? AND status = ?`,
		r.Status, sqlNullPtr(r.PayoutLinkID), sqlNullPtr(r.TransferID), r.RejectReason, sqldb.Micros(r.Updated),
		r.ID, from)
}

// ListPayoutRequests reads a page of the app's payout requests, newest first unless the filter
// asks for the oldest. Both orders walk payout_requests_status (or _app, without a status).
func (q *Queries) ListPayoutRequests(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutRequestFilter) (_ []service.PayoutRequestRecord, _ bool, err error) {
	defer wrap(&err, "list payout requests of app %s", appID)
	l := listQuery{selectFrom: `SELECT ` + payoutRequestColumns + ` FROM payout_requests`, order: "seq",
		cursor: q.seqCursor("payout_requests", appID), oldestFirst: f.Order == payouts.OrderOldest}
	payoutRequestsOf(&l, appID, f)
	return run(ctx, q, l, page, func(r *sql.Rows) (service.PayoutRequestRecord, error) { return scanPayoutRequest(r) })
}

// CountPayoutRequests counts the app's payout requests the filter matches, from the index alone.
func (q *Queries) CountPayoutRequests(ctx context.Context, appID string, f payouts.PayoutRequestFilter) (n int64, err error) {
	defer wrap(&err, "count payout requests of app %s", appID)
	l := listQuery{}
	payoutRequestsOf(&l, appID, f)
	err = q.queryRowTouching(ctx, readingOthers, `SELECT COUNT(*) FROM payout_requests WHERE `+strings.Join(l.where, " AND "), l.args...).Scan(&n)
	return n, err
}

// payoutRequestsOf narrows l to the app's payout requests the filter matches.
func payoutRequestsOf(l *listQuery, appID string, f payouts.PayoutRequestFilter) {
	l.filter("app_id = ?", appID)
	if f.Status != "" {
		l.filter("status = ?", f.Status)
	}
}
