package dashstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// Role is what an operator is allowed to do; the dashboard maps each role to its permissions.
type Role string

const (
	RoleAdmin      Role = "admin"      // everything, and manages operators
	RoleOperations Role = "operations" // users, payout methods, transfers, payouts, links, flows
	RoleSupport    Role = "support"    // reads users and links, cancels payout links
	RoleManager    Role = "manager"    // reads everything, exports
)

// Roles lists every role in display order.
var Roles = []Role{RoleAdmin, RoleOperations, RoleSupport, RoleManager}

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	for _, known := range Roles {
		if r == known {
			return true
		}
	}
	return false
}

// Label is the role's name for people.
func (r Role) Label() string {
	switch r {
	case RoleAdmin:
		return "Admin"
	case RoleOperations:
		return "Operations"
	case RoleSupport:
		return "Support"
	case RoleManager:
		return "Manager"
	}
	return string(r)
}

// Operator is a person who signs in to the dashboard.
type Operator struct {
	ID           string
	Email        string // lower case; the login name
	Name         string
	Role         Role
	PasswordHash string // argon2id, PHC string format
	Disabled     bool
	Created      time.Time
	Updated      time.Time
	// VouchedBy is the operator who last gave this one their access: made the account, changed
	// its role or reset its password, at VouchedAt; empty when nobody did (the first admin, an
	// account from the command line). The approval rule reads it (a maker's requests are not
	// approved by someone the maker just vouched for).
	VouchedBy string
	VouchedAt time.Time
	// TimeZone is the IANA zone whose days the operator reads (SetOperatorTimeZone); empty
	// until they set it.
	TimeZone string
}

// NormalizeEmail is the form in which operator emails are stored and looked up.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

func (op *Operator) validate() error {
	p := payouts.Problems{}
	if !payouts.ValidEmail(op.Email) {
		p.Add("email", "enter an email address like name@example.com")
	}
	if op.Name == "" {
		p.Add("name", "enter a name")
	} else if len(op.Name) > 100 {
		p.Add("name", "use at most 100 characters")
	}
	if !op.Role.Valid() {
		p.Add("role", "choose a role")
	}
	if op.PasswordHash == "" {
		p.Add("password", "set a password")
	}
	return p.Err()
}

const operatorColumns = `id, email, name, role, password_hash, disabled, created_at, updated_at, vouched_by, vouched_at, time_zone`

func scanOperator(row interface{ Scan(...any) error }) (Operator, error) {
	var op Operator
	var created, updated, vouched int64
	err := row.Scan(&op.ID, &op.Email, &op.Name, &op.Role, &op.PasswordHash, &op.Disabled, &created, &updated,
		&op.VouchedBy, &vouched, &op.TimeZone)
	if errors.Is(err, sql.ErrNoRows) {
		return op, payouts.Errorf(payouts.ENotFound, "operator not found")
	}
	op.Created, op.Updated = sqldb.FromMicros(created), sqldb.FromMicros(updated)
	if op.VouchedBy != "" {
		op.VouchedAt = sqldb.FromMicros(vouched)
	}
	return op, err
}

// CreateOperator validates op, gives it an id and stores it, vouched for at now by
// op.VouchedBy when set. A taken email is a field error.
func (s *Store) CreateOperator(ctx context.Context, op *Operator, now time.Time) error {
	op.Email = NormalizeEmail(op.Email)
	op.Name = strings.TrimSpace(op.Name)
	if err := op.validate(); err != nil {
		return err
	}
	op.ID = uuid.NewString()
	op.Created, op.Updated = now.UTC(), now.UTC()
	var vouched int64
	if op.VouchedBy != "" {
		op.VouchedAt, vouched = now.UTC(), sqldb.Micros(now)
	}
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO operators (`+operatorColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		op.ID, op.Email, op.Name, op.Role, op.PasswordHash, op.Disabled, sqldb.Micros(now), sqldb.Micros(now), op.VouchedBy, vouched,
		op.TimeZone)
	if sqldb.IsUniqueViolation(err) {
		return &payouts.Error{Code: payouts.EInvalidInput, Message: "an operator with this email already exists",
			Fields: map[string]string{"email": "an operator with this email already exists"}}
	}
	return err
}

// Operator returns the operator with the given id.
func (s *Store) Operator(ctx context.Context, id string) (Operator, error) {
	return scanOperator(s.db.QueryRowContext(ctx,
		s.db.Rebind(`SELECT `+operatorColumns+` FROM operators WHERE id = ?`), id))
}

// OperatorByEmail returns the operator who signs in with email.
func (s *Store) OperatorByEmail(ctx context.Context, email string) (Operator, error) {
	return scanOperator(s.db.QueryRowContext(ctx,
		s.db.Rebind(`SELECT `+operatorColumns+` FROM operators WHERE email = ?`), NormalizeEmail(email)))
}

// Operators lists every operator by email. A dashboard has tens of operators, not thousands.
func (s *Store) Operators(ctx context.Context) ([]Operator, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+operatorColumns+` FROM operators ORDER BY email`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ops []Operator
	for rows.Next() {
		op, err := scanOperator(rows)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, rows.Err()
}

// CountOperators counts operators, disabled ones included.
func (s *Store) CountOperators(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM operators`).Scan(&n)
	return n, err
}

// OperatorUpdate changes some of an operator's settings; nil fields are left as they are.
type OperatorUpdate struct {
	Role         *Role
	Disabled     *bool
	PasswordHash *string
	// By is the operator making the change: a new role or password is access they vouch for.
	By string
}

// UpdateOperator applies upd to the operator with the given id. Disabling an operator or
// resetting their password signs them out everywhere, in the same transaction. The last enabled
// admin can be neither demoted nor disabled, so the dashboard always has someone to manage it.
func (s *Store) UpdateOperator(ctx context.Context, id string, upd OperatorUpdate, now time.Time) (Operator, error) {
	if upd.Role != nil && !upd.Role.Valid() {
		return Operator{}, payouts.FieldError("role", "choose a role")
	}
	if upd.PasswordHash != nil && *upd.PasswordHash == "" {
		return Operator{}, payouts.FieldError("password", "set a password")
	}
	var op Operator
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		op, err = scanOperator(tx.QueryRowContext(ctx,
			s.db.Rebind(`SELECT `+operatorColumns+` FROM operators WHERE id = ?`), id))
		if err != nil {
			return err
		}
		wasAdmin := op.Role == RoleAdmin && !op.Disabled
		if upd.Role != nil {
			op.Role = *upd.Role
		}
		if upd.Disabled != nil {
			op.Disabled = *upd.Disabled
		}
		if upd.PasswordHash != nil {
			op.PasswordHash = *upd.PasswordHash
		}
		if wasAdmin && (op.Role != RoleAdmin || op.Disabled) {
			var others int
			if err := tx.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM operators
				WHERE role = ? AND disabled = ? AND id <> ?`), RoleAdmin, false, id).Scan(&others); err != nil {
				return err
			}
			if others == 0 {
				field := "role"
				if op.Disabled {
					field = "disabled"
				}
				return &payouts.Error{Code: payouts.EInvalidInput,
					Message: "this is the last admin: make someone else an admin first",
					Fields:  map[string]string{field: "this is the last admin: make someone else an admin first"}}
			}
		}
		op.Updated = now.UTC()
		if upd.By != "" && (upd.Role != nil || upd.PasswordHash != nil) {
			op.VouchedBy, op.VouchedAt = upd.By, now.UTC()
		}
		var vouched int64
		if op.VouchedBy != "" {
			vouched = sqldb.Micros(op.VouchedAt)
		}
		if _, err := tx.ExecContext(ctx, s.db.Rebind(`UPDATE operators
			SET role = ?, disabled = ?, password_hash = ?, updated_at = ?, vouched_by = ?, vouched_at = ? WHERE id = ?`),
			op.Role, op.Disabled, op.PasswordHash, sqldb.Micros(now), op.VouchedBy, vouched, id); err != nil {
			return err
		}
		if op.Disabled || upd.PasswordHash != nil {
			_, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM sessions WHERE operator_id = ?`), id)
			return err
		}
		return nil
	})
	return op, err
}

// SetOperatorTimeZone sets the time zone of the operator with id: an IANA name this machine
// knows, else a field error.
func (s *Store) SetOperatorTimeZone(ctx context.Context, id, zone string, now time.Time) error {
	if _, ok := payouts.LoadZone(zone); zone == "" || !ok {
		return payouts.FieldError("time_zone", "choose a time zone, such as America/New_York")
	}
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE operators SET time_zone = ?, updated_at = ? WHERE id = ?`),
		zone, sqldb.Micros(now), id)
	if ok, err := oneRow(res, err); err != nil || !ok {
		if err == nil {
			err = payouts.Errorf(payouts.ENotFound, "operator not found")
		}
		return err
	}
	return nil
}
