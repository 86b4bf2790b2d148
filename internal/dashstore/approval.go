package dashstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// ApprovalStatus is where a held request stands.
type ApprovalStatus string

const (
	ApprovalPending  ApprovalStatus = "pending"   // waiting for a second operator
	ApprovalRunning  ApprovalStatus = "approving" // approved, its request sent; the outcome not yet recorded
	ApprovalApproved ApprovalStatus = "approved"  // approved and done: ResultID names what it made
	ApprovalRejected ApprovalStatus = "rejected"  // rejected with a reason; nothing moved
	ApprovalFailed   ApprovalStatus = "failed"    // approved, but the service refused it: Reason says why
)

// Open reports whether the approval still waits for an outcome.
func (s ApprovalStatus) Open() bool { return s == ApprovalPending || s == ApprovalRunning }

// Approval is a request one operator (the maker) made above the approval threshold, held until
// another (the checker) approves or rejects it.
type Approval struct {
	ID             string
	Kind           string // what Request is, e.g. "payout"; the handlers know how to run each kind
	Request        string // the validated request, as JSON
	IdempotencyKey string // the request's key: one approval per form sent, one effect per approval
	Amount         payouts.Money
	AppID          string
	UserID         string // the payee when a user; empty for a payout link to a payee by contact
	PayeeKey       string // the payee as the policy counts them (Outflow.Payee)
	PayeeName      string // who would be paid, as the maker saw them
	PayeeEmail     string
	Method         string // how, in words ("PayPal", "Payout link by email")
	MakerID        string
	MakerEmail     string
	Status         ApprovalStatus
	CheckerID      string
	CheckerEmail   string
	Reason         string       // the checker's reason for a rejection, or the service's for a failure
	ResultID       string       // the id of what the approved request made (a transfer, a payout link)
	HeldFor        []HoldReason // why the policy held it, with the totals then
	Created        time.Time
	Decided        time.Time // zero while pending
}

const approvalColumns = `id, kind, request, idempotency_key, amount, app_id, user_id, payee_name, payee_email, method,
	maker_id, maker_email, status, checker_id, checker_email, reason, result_id, created_at, decided_at, payee_key, held_for`

func scanApproval(row interface{ Scan(...any) error }) (Approval, error) {
	var a Approval
	var created, decided int64
	var heldFor string
	err := row.Scan(&a.ID, &a.Kind, &a.Request, &a.IdempotencyKey, &a.Amount, &a.AppID, &a.UserID, &a.PayeeName, &a.PayeeEmail,
		&a.Method, &a.MakerID, &a.MakerEmail, &a.Status, &a.CheckerID, &a.CheckerEmail, &a.Reason, &a.ResultID,
		&created, &decided, &a.PayeeKey, &heldFor)
	if errors.Is(err, sql.ErrNoRows) {
		return a, payouts.Errorf(payouts.ENotFound, "approval not found")
	}
	if err == nil && heldFor != "" {
		err = json.Unmarshal([]byte(heldFor), &a.HeldFor)
	}
	a.Created = sqldb.FromMicros(created)
	if decided != 0 {
		a.Decided = sqldb.FromMicros(decided)
	}
	return a, err
}

// CreateApproval stores a as pending. A second request with the same idempotency key (a double
// click, a form sent again) stores nothing and returns the first one in a, with created false:
// one approval per form.
func (s *Store) CreateApproval(ctx context.Context, a *Approval, now time.Time) (created bool, err error) {
	if a.Kind == "" || a.Request == "" || a.IdempotencyKey == "" || a.MakerID == "" {
		return false, payouts.Errorf(payouts.EInvalidInput, "an approval needs a kind, a request, an idempotency key and a maker")
	}
	var heldFor []byte
	if len(a.HeldFor) > 0 {
		if heldFor, err = json.Marshal(a.HeldFor); err != nil {
			return false, err
		}
	}
	a.ID, a.Status, a.Created = uuid.NewString(), ApprovalPending, now.UTC()
	_, err = s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO approvals (`+approvalColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', '', '', ?, 0, ?, ?)`),
		a.ID, a.Kind, a.Request, a.IdempotencyKey, a.Amount, a.AppID, a.UserID, a.PayeeName, a.PayeeEmail, a.Method,
		a.MakerID, a.MakerEmail, a.Status, sqldb.Micros(now), a.PayeeKey, string(heldFor))
	if sqldb.IsUniqueViolation(err) {
		*a, err = scanApproval(s.db.QueryRowContext(ctx,
			s.db.Rebind(`SELECT `+approvalColumns+` FROM approvals WHERE idempotency_key = ?`), a.IdempotencyKey))
		return false, err
	}
	return err == nil, err
}

// Approval returns the approval with the given id.
func (s *Store) Approval(ctx context.Context, id string) (Approval, error) {
	return scanApproval(s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT `+approvalColumns+` FROM approvals WHERE id = ?`), id))
}

// ApprovalFilter narrows the list of approvals.
type ApprovalFilter struct {
	Open  bool // pending and approving ones, oldest first; otherwise the decided ones, newest first
	Limit int  // 1..100; 0 = payouts.DefaultLimit
}

// Approvals lists the open approvals, oldest first (the queue's order), or the decided ones,
// newest first, and whether more remain.
func (s *Store) Approvals(ctx context.Context, f ApprovalFilter) ([]Approval, bool, error) {
	limit, err := pageLimit(f.Limit)
	if err != nil {
		return nil, false, err
	}
	q := `SELECT ` + approvalColumns + ` FROM approvals WHERE status IN (?, ?) ORDER BY created_at, id LIMIT ?`
	args := []any{ApprovalPending, ApprovalRunning, limit + 1}
	if !f.Open {
		q = `SELECT ` + approvalColumns + ` FROM approvals WHERE status IN (?, ?, ?) ORDER BY decided_at DESC, id LIMIT ?`
		args = []any{ApprovalApproved, ApprovalRejected, ApprovalFailed, limit + 1}
	}
	return queryPage(ctx, s, q, args, limit, func(rows *sql.Rows) (Approval, error) { return scanApproval(rows) })
}

// CountOpenApprovals counts the approvals that wait for an outcome, for the overview.
func (s *Store) CountOpenApprovals(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM approvals WHERE status IN (?, ?)`),
		ApprovalPending, ApprovalRunning).Scan(&n)
	return n, err
}

// CountFailedApprovals counts the app's approvals of kind that were approved and then refused
// by the service (so made nothing) at since or later, for the overview.
func (s *Store) CountFailedApprovals(ctx context.Context, appID, kind string, since time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM approvals
		WHERE status = ? AND decided_at >= ? AND app_id = ? AND kind = ?`),
		ApprovalFailed, sqldb.Micros(since), appID, kind).Scan(&n)
	return n, err
}

// StartApproval records that checker approved a pending approval, before its request is sent,
// so that no one can reject it while it runs. An approval already approving is returned as it is
// (a retry after the service did not answer sends the same idempotency key again); ok is false
// for one already decided, which must not run again.
func (s *Store) StartApproval(ctx context.Context, id string, checker Operator, now time.Time) (a Approval, ok bool, err error) {
	a, changed, err := s.decide(ctx, id, ApprovalPending, Approval{Status: ApprovalRunning,
		CheckerID: checker.ID, CheckerEmail: checker.Email}, now)
	if err != nil || changed {
		return a, changed, err
	}
	return a, a.Status == ApprovalRunning, nil
}

// FinishApproval records the outcome of an approval that was approving: approved with the id of
// what it made, or failed with the service's reason.
func (s *Store) FinishApproval(ctx context.Context, id string, status ApprovalStatus, resultID, reason string, now time.Time) (Approval, error) {
	if status != ApprovalApproved && status != ApprovalFailed {
		return Approval{}, payouts.Errorf(payouts.EInvalidInput, "an approval finishes approved or failed")
	}
	a, _, err := s.decide(ctx, id, ApprovalRunning, Approval{Status: status, ResultID: resultID, Reason: reason}, now)
	return a, err
}

// RejectApproval records checker's rejection of a pending approval; changed is false when it was
// no longer pending (someone decided first), and nothing changed.
func (s *Store) RejectApproval(ctx context.Context, id string, checker Operator, reason string, now time.Time) (a Approval, changed bool, err error) {
	return s.decide(ctx, id, ApprovalPending, Approval{Status: ApprovalRejected,
		CheckerID: checker.ID, CheckerEmail: checker.Email, Reason: reason}, now)
}

// decide moves an approval in status from to to.Status, setting the fields of to
// that are not empty (NULLIF turns an empty one into NULL, and COALESCE keeps the column), and
// returns it as it then stands. The status guard in the UPDATE makes two operators deciding at
// once agree: one changes it, the other sees what the first did.
func (s *Store) decide(ctx context.Context, id string, from ApprovalStatus, to Approval, now time.Time) (Approval, bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE approvals SET status = ?, decided_at = ?,
		checker_id = COALESCE(NULLIF(?, ''), checker_id), checker_email = COALESCE(NULLIF(?, ''), checker_email),
		reason = COALESCE(NULLIF(?, ''), reason), result_id = COALESCE(NULLIF(?, ''), result_id)
		WHERE id = ? AND status = ?`),
		to.Status, sqldb.Micros(now), to.CheckerID, to.CheckerEmail, to.Reason, to.ResultID, id, from)
	if err != nil {
		return Approval{}, false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Approval{}, false, err
	}
	a, err := s.Approval(ctx, id)
	return a, n == 1, err
}
