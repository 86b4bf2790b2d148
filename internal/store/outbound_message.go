package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const outboundColumns = `id, app_id, user_id, payout_link_id, purpose, channel, recipient, subject, body, html,
	status, attempts, next_attempt, provider, error, created, updated`

func scanOutbound(row interface{ Scan(...any) error }) (service.OutboundMessageRecord, error) {
	var m service.OutboundMessageRecord
	var next, created, updated int64
	err := row.Scan(&m.ID, &m.AppID, &m.UserID, &m.PayoutLinkID, &m.Purpose, &m.Channel, &m.To, &m.Subject, &m.Body,
		&m.HTML, &m.Status, &m.Attempts, &next, &m.Provider, &m.Error, &created, &updated)
	m.NextAttempt, m.Created, m.Updated = sqldb.FromMicros(next), sqldb.FromMicros(created), sqldb.FromMicros(updated)
	return m, err
}

func scanOutboundRows(r *sql.Rows) (service.OutboundMessageRecord, error) { return scanOutbound(r) }

// CreateOutboundMessage queues a message in the outbox and sets its id.
func (q *Queries) CreateOutboundMessage(ctx context.Context, m *service.OutboundMessageRecord) (err error) {
	defer wrap(&err, "create outbound message")
	return q.queryRow(ctx, `INSERT INTO outbound_messages (app_id, user_id, payout_link_id, purpose, channel, recipient,
		subject, body, html, status, attempts, next_attempt, provider, error, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		m.AppID, m.UserID, m.PayoutLinkID, m.Purpose, m.Channel, m.To, m.Subject, m.Body, m.HTML, m.Status, m.Attempts,
		sqldb.Micros(m.NextAttempt), m.Provider, m.Error, sqldb.Micros(m.Created), sqldb.Micros(m.Updated)).Scan(&m.ID)
}

// ClaimDueMessages leases until until up to max queued messages due at now (only message id,
// when not 0), counting a try of each, skipping rows other workers hold.
func (q *Queries) ClaimDueMessages(ctx context.Context, now, until time.Time, id int64, max int) (_ []service.OutboundMessageRecord, err error) {
	defer wrap(&err, "claim due messages")
	rows, err := q.query(ctx, `SELECT `+outboundColumns+` FROM outbound_messages
		WHERE status = ? AND next_attempt <= ? AND (? = 0 OR id = ?) ORDER BY next_attempt, id LIMIT ?`+q.skipLocked(),
		payouts.MessageQueued, sqldb.Micros(now), id, id, max)
	if err != nil {
		return nil, err
	}
	out, err := sqldb.All(rows, scanOutboundRows)
	if err != nil {
		return nil, err
	}
	for i := range out {
		m := &out[i]
		m.Attempts++
		m.NextAttempt = until
		if _, err := q.exec(ctx, `UPDATE outbound_messages SET attempts = ?, next_attempt = ? WHERE id = ?`,
			m.Attempts, sqldb.Micros(until), m.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UpdateOutboundMessage records a message's status, tries, next try, provider and error.
func (q *Queries) UpdateOutboundMessage(ctx context.Context, m *service.OutboundMessageRecord) (err error) {
	defer wrap(&err, "update outbound message %d", m.ID)
	_, err = q.exec(ctx, `UPDATE outbound_messages SET status = ?, attempts = ?, next_attempt = ?, provider = ?, error = ?,
		updated = ? WHERE id = ?`, m.Status, m.Attempts, sqldb.Micros(m.NextAttempt), m.Provider, m.Error,
		sqldb.Micros(m.Updated), m.ID)
	return err
}

// DropQueuedMessages fails the queued messages of a payout link, for reason.
func (q *Queries) DropQueuedMessages(ctx context.Context, appID, linkID, reason string, now time.Time) (err error) {
	defer wrap(&err, "drop queued messages of link %s", linkID)
	_, err = q.exec(ctx, `UPDATE outbound_messages SET status = ?, error = ?, updated = ?
		WHERE app_id = ? AND payout_link_id = ? AND status = ?`,
		payouts.MessageFailed, reason, sqldb.Micros(now), appID, linkID, payouts.MessageQueued)
	return err
}

// GetOutboundMessage reads a message of the outbox; none is service.ErrNoRecord.
func (q *Queries) GetOutboundMessage(ctx context.Context, id int64) (_ *service.OutboundMessageRecord, err error) {
	defer wrap(&err, "get outbound message %d", id)
	m, err := scanOutbound(q.queryRow(ctx, `SELECT `+outboundColumns+` FROM outbound_messages WHERE id = ?`, id))
	if err != nil {
		return nil, noRecord(err)
	}
	return &m, nil
}

// ListOutboundMessages reads the newest outbox messages to a user, at most limit.
func (q *Queries) ListOutboundMessages(ctx context.Context, appID, userID string, limit int) (_ []service.OutboundMessageRecord, err error) {
	defer wrap(&err, "list outbound messages")
	rows, err := q.query(ctx, `SELECT `+outboundColumns+` FROM outbound_messages WHERE app_id = ? AND user_id = ?
		ORDER BY id DESC LIMIT ?`, appID, userID, limit)
	if err != nil {
		return nil, err
	}
	return sqldb.All(rows, scanOutboundRows)
}
