package store

import (
	"context"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

// SaveMessage keeps a message in the sandbox inbox.
func (q *Queries) SaveMessage(ctx context.Context, m *service.MessageRecord) (err error) {
	defer wrap(&err, "save message")
	return q.queryRow(ctx, `INSERT INTO sandbox_messages (app_id, channel, recipient, subject, body, created)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, m.AppID, m.Channel, m.To, m.Subject, m.Body,
		sqldb.Micros(m.Created)).Scan(&m.ID)
}

// ListMessages reads the newest messages of the sandbox inbox older than message beforeID (0:
// from the newest), of one app or of all when appID is empty.
func (q *Queries) ListMessages(ctx context.Context, appID string, beforeID int64, limit int) (_ []service.MessageRecord, err error) {
	defer wrap(&err, "list messages")
	rows, err := q.query(ctx, `SELECT id, app_id, channel, recipient, subject, body, created FROM sandbox_messages
		WHERE (? = '' OR app_id = ?) AND (? = 0 OR id < ?) ORDER BY id DESC LIMIT ?`, appID, appID, beforeID, beforeID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.MessageRecord
	for rows.Next() {
		var m service.MessageRecord
		var created int64
		if err := rows.Scan(&m.ID, &m.AppID, &m.Channel, &m.To, &m.Subject, &m.Body, &created); err != nil {
			return nil, err
		}
		m.Created = sqldb.FromMicros(created)
		out = append(out, m)
	}
	return out, rows.Err()
}
