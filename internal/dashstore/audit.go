package dashstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// AuditEntry records one operator action that changed something: who, what, when, which object.
type AuditEntry struct {
	ID            int64
	Created       time.Time
	OperatorID    string
	OperatorEmail string // kept as it was then, so the entry reads the same after the operator changes
	Action        string // e.g. "user.create", "operator.disable"
	ObjectType    string // e.g. "user", "operator", "payout_link"
	ObjectID      string
	Detail        string // short human detail, e.g. "amount $25.00"; never secrets
	IP            string
}

// AddAudit appends e to the audit log and sets its ID.
func (s *Store) AddAudit(ctx context.Context, e *AuditEntry) error {
	if e.OperatorID == "" || e.Action == "" || e.ObjectType == "" {
		return payouts.Errorf(payouts.EInvalidInput, "an audit entry needs an operator, an action and an object type")
	}
	q := `INSERT INTO audit_log (created_at, operator_id, operator_email, action, object_type, object_id, detail, ip)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
	return s.db.QueryRowContext(ctx, s.db.Rebind(q), sqldb.Micros(e.Created), e.OperatorID, e.OperatorEmail,
		e.Action, e.ObjectType, e.ObjectID, e.Detail, e.IP).Scan(&e.ID)
}

// AuditFilter narrows and pages the audit log, newest first.
type AuditFilter struct {
	OperatorID  string
	Action      string
	ObjectType  string
	ObjectID    string
	CreatedFrom time.Time // entries at or after it; zero = no bound
	CreatedTo   time.Time // entries before it; zero = no bound
	Before      int64     // entries with a smaller id only (the next, older page); 0 = the newest
	Limit       int       // 1..100; 0 = payouts.DefaultLimit
}

// AuditLog returns one page of the audit log and whether older entries remain. The id cursor
// keeps every page as cheap as the first.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, bool, error) {
	limit, err := pageLimit(f.Limit)
	if err != nil {
		return nil, false, err
	}
	var where []string
	var args []any
	add := func(cond string, arg any) { where = append(where, cond); args = append(args, arg) }
	if f.OperatorID != "" {
		add("operator_id = ?", f.OperatorID)
	}
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if f.ObjectType != "" {
		add("object_type = ?", f.ObjectType)
	}
	if f.ObjectID != "" {
		add("object_id = ?", f.ObjectID)
	}
	if !f.CreatedFrom.IsZero() {
		add("created_at >= ?", sqldb.Micros(f.CreatedFrom))
	}
	if !f.CreatedTo.IsZero() {
		add("created_at < ?", sqldb.Micros(f.CreatedTo))
	}
	if f.Before > 0 {
		add("id < ?", f.Before)
	}
	q := `SELECT id, created_at, operator_id, operator_email, action, object_type, object_id, detail, ip FROM audit_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC LIMIT ?"
	args = append(args, limit+1)
	return queryPage(ctx, s, q, args, limit, func(rows *sql.Rows) (AuditEntry, error) {
		var e AuditEntry
		var created int64
		err := rows.Scan(&e.ID, &created, &e.OperatorID, &e.OperatorEmail, &e.Action, &e.ObjectType,
			&e.ObjectID, &e.Detail, &e.IP)
		e.Created = sqldb.FromMicros(created)
		return e, err
	})
}
