package store

import (
	"context"
	"database/sql"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const linkColumns = `seq, id, app_id, amount, status, payee_first_name, payee_last_name, payee_email, payee_country,
	payee_phone, delivery_method, delivery_message, tax_exempt, force_compliance, user_id, claimed_user_id, flow_id,
	transfer_id, memo, metadata, fee_party, created, updated, claimed_at, claimed_via`

func scanLink(row interface{ Scan(...any) error }) (service.PayoutLinkRecord, error) {
	var l service.PayoutLinkRecord
	var userID, claimed, flowID, transferID, md sql.NullString
	var created, updated int64
	var claimedAt sql.NullInt64
	p := &l.Payee
	err := row.Scan(&l.Seq, &l.ID, &l.AppID, &l.Amount, &l.Status, &p.FirstName, &p.LastName, &p.Email,
		&p.CountryCode, &p.PhoneNumber, &l.Delivery.Method, &l.Delivery.Message, &l.TaxExempt, &l.ForceCompliance,
		&userID, &claimed, &flowID, &transferID, &l.Memo, &md, &l.PayoutFeeParty, &created, &updated,
		&claimedAt, &l.ClaimedVia)
	if err != nil {
		return l, noRecord(err)
	}
	if claimedAt.Valid {
		t := payouts.NewTime(sqldb.FromMicros(claimedAt.Int64))
		l.ClaimedAt = &t
	}
	l.UserID, l.ClaimedUserID, l.FlowID, l.TransferID = stringPtr(userID), stringPtr(claimed), stringPtr(flowID), stringPtr(transferID)
	l.Metadata = metadataOf(md)
	l.Created = payouts.NewTime(sqldb.FromMicros(created))
	l.Updated = sqldb.FromMicros(updated)
	switch l.Delivery.Method {
	case payouts.DeliveryEmail:
		l.Delivery.Email = p.Email
	case payouts.DeliverySMS:
		l.Delivery.CountryCode, l.Delivery.PhoneNumber = p.CountryCode, p.PhoneNumber
	}
	return l, nil
}

// CreatePayoutLink inserts a payout link.
func (q *Queries) CreatePayoutLink(ctx context.Context, l *service.PayoutLinkRecord) (err error) {
	defer wrap(&err, "create payout link %s", l.ID)
	p := l.Payee
	search := payouts.PayoutLinkSearchText(p, l.Memo)
	return q.queryRowTouching(ctx, writingOthers, `INSERT INTO payout_links (id, app_id, amount, status, payee_first_name, payee_last_name,
		payee_email, payee_country, payee_phone, delivery_method, delivery_message, tax_exempt, force_compliance,
		user_id, claimed_user_id, flow_id, transfer_id, memo, metadata, fee_party, search, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		l.ID, l.AppID, int64(l.Amount), l.Status, p.FirstName, p.LastName, p.Email, p.CountryCode, p.PhoneNumber,
		l.Delivery.Method, l.Delivery.Message, l.TaxExempt, l.ForceCompliance, sqlNullPtr(l.UserID),
		sqlNullPtr(l.ClaimedUserID), sqlNullPtr(l.FlowID), sqlNullPtr(l.TransferID), l.Memo,
		metadataValue(l.Metadata), l.PayoutFeeParty, search, sqldb.Micros(l.Created.Time), sqldb.Micros(l.Updated)).Scan(&l.Seq)
}

// GetPayoutLink reads one payout link of the app, by its id alone and its app checked here, as
// GetTransfer does.
func (q *Queries) GetPayoutLink(ctx context.Context, appID, id string) (_ *service.PayoutLinkRecord, err error) {
	defer wrap(&err, "get payout link %s", id)
	l, err := scanLink(q.queryRowLocked(ctx, readingOthers, linkByID, "", id))
	if err == nil && l.AppID != appID {
		err = service.ErrNoRecord
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// PayoutLinkByID reads a payout link by id alone, for the hosted pages its payee opens.
func (q *Queries) PayoutLinkByID(ctx context.Context, id string) (_ *service.PayoutLinkRecord, err error) {
	defer wrap(&err, "payout link by id %s", id)
	l, err := scanLink(q.queryRowLocked(ctx, readingOthers, linkByID, "", id))
	if err != nil {
		return nil, err
	}
	return &l, nil
}

const linkByID = `SELECT ` + linkColumns + ` FROM payout_links WHERE id = ?`

// UpdatePayoutLink writes a link's status and claim, if it is still in status from.
func (q *Queries) UpdatePayoutLink(ctx context.Context, l *service.PayoutLinkRecord, from payouts.PayoutLinkStatus) (err error) {
	defer wrap(&err, "update payout link %s", l.ID)
	var claimedAt sql.NullInt64
	if l.ClaimedAt != nil {
		claimedAt = sql.NullInt64{Int64: sqldb.Micros(l.ClaimedAt.Time), Valid: true}
	}
	return q.execOne(ctx, writingOthers, `UPDATE payout_links SET status = ?, claimed_user_id = ?, claimed_at = ?, claimed_via = ?,
		updated = ? WHERE app_id = ? AND id = ? AND status = ?`,
		l.Status, sqlNullPtr(l.ClaimedUserID), claimedAt, l.ClaimedVia, sqldb.Micros(l.Updated), l.AppID, l.ID, from)
}

// UpdatePayoutLinkPayee writes a link's status and payee, with the search text its payee makes,
// if it is still in status from.
func (q *Queries) UpdatePayoutLinkPayee(ctx context.Context, l *service.PayoutLinkRecord, from payouts.PayoutLinkStatus) (err error) {
	defer wrap(&err, "update payout link payee %s", l.ID)
	p := l.Payee
	return q.execOne(ctx, writingOthers, `UPDATE payout_links SET status = ?, payee_first_name = ?, payee_last_name = ?,
		payee_email = ?, payee_country = ?, payee_phone = ?, search = ?, updated = ? WHERE app_id = ? AND id = ? AND status = ?`,
		l.Status, p.FirstName, p.LastName, p.Email, p.CountryCode, p.PhoneNumber, payouts.PayoutLinkSearchText(p, l.Memo),
		sqldb.Micros(l.Updated), l.AppID, l.ID, from)
}

// ListPayoutLinks reads a page of the app's payout links, newest first.
func (q *Queries) ListPayoutLinks(ctx context.Context, appID string, page payouts.Page, f payouts.PayoutLinkFilter) (_ []service.PayoutLinkRecord, _ bool, err error) {
	defer wrap(&err, "list payout links")
	l := listQuery{selectFrom: `SELECT ` + linkColumns + ` FROM payout_links`, order: "seq",
		cursor: q.seqCursor("payout_links", appID)}
	l.filter("app_id = ?", appID)
	if f.Status != "" {
		l.filter("status = ?", f.Status)
	}
	if f.Search != "" {
		l.search("search", f.Search)
	}
	if f.Amount != 0 {
		l.filter("amount = ?", int64(f.Amount)) // through payout_links_amount
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (service.PayoutLinkRecord, error) { return scanLink(r) })
}

// skipLocked makes a worker's SELECT lock its row and pass over rows other workers hold. SQLite
// needs no such clause: its write transaction holds the one write lock.
func (q *Queries) skipLocked() string {
	if q.dialect == sqldb.Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}
