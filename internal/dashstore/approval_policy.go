package dashstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// ApprovalPolicy is the maker-checker rule. A request the dashboard would send (a payout, a
// payout link, money moved into a user's wallet, a bulk file) waits for a second operator whose
// role is one of Approvers when it is more than Above on its own, or when, with what was already
// sent in the last Window (to a payee, by anyone; by its operator, through the dashboard), it
// would take one of its payees past PayeeLimit or its operator past OperatorLimit. So splitting a
// sum into many requests holds the request that crosses the limit. Store.AdmitOutflows is the
// one place that decides.
type ApprovalPolicy struct {
	On            bool          // off: nothing the dashboard sends is held
	Above         payouts.Money // one request of more than this waits; equal goes through
	Window        time.Duration // the rolling window the totals are counted over
	PayeeLimit    payouts.Money // most sent to one payee in a window; 0: no limit
	OperatorLimit payouts.Money // most sent by one operator in a window; 0: no limit
	Approvers     []Role
	// BearerLinks are the roles that may issue a payout link that names nobody (no user, phone or
	// email), which whoever opens it first claims, and see such links' claim URLs; every other
	// role sees them masked.
	BearerLinks []Role
}

// DefaultApprovalPolicy is the policy of a dashboard not told otherwise: a request of more than
// $1,000.00, or one that takes a payee past $3,000.00 or an operator past $25,000.00 in 24 hours,
// waits for an admin or a manager; admins and operations hold links that name nobody. The
// dashboard's flags take their defaults from it.
func DefaultApprovalPolicy() ApprovalPolicy {
	return ApprovalPolicy{On: true, Above: 1000_00, Window: 24 * time.Hour, PayeeLimit: 3000_00, OperatorLimit: 25_000_00,
		Approvers: []Role{RoleAdmin, RoleManager}, BearerLinks: []Role{RoleAdmin, RoleOperations}}
}

// Outflow is money one request sends one payee, as the policy counts it.
type Outflow struct {
	Key        string // the request's idempotency key; a bulk row's is BulkOutflowKey
	Kind       string // what the request is, as approvals name kinds
	Payee      string // a user id, or PayeeContactKey of a link's payee; empty for a link that names nobody
	OperatorID string // who asked for it
	Amount     payouts.Money
}

// BulkOutflowKey is the outflow key of a row of a bulk job: one per row, however often the job
// is confirmed.
func BulkOutflowKey(jobID string, row int) string {
	return "bulk:" + jobID + ":" + strconv.Itoa(row)
}

// PayeeContactKey names, as outflows do, the payee of a payout link who is not a user yet: by the
// phone it names, else its email, case and spacing aside; empty when it names neither.
func PayeeContactKey(email, countryCode, phone string) string {
	digits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s)
	}
	switch {
	case digits(phone) != "":
		return "phone:+" + digits(countryCode) + digits(phone)
	case strings.TrimSpace(email) != "":
		return "email:" + NormalizeEmail(email)
	}
	return ""
}

// The rules a request can be held by.
const (
	HoldRequest  = "request"  // the request alone is above the threshold
	HoldPayee    = "payee"    // it takes a payee past the limit of the window
	HoldOperator = "operator" // it takes its operator past the limit of the window
)

// HoldReason is one rule that held a request, with the totals that triggered it.
type HoldReason struct {
	Rule   string        `json:"rule"`   // HoldRequest, HoldPayee or HoldOperator
	Who    string        `json:"who"`    // the payee key or the operator id; empty for HoldRequest
	Sent   payouts.Money `json:"sent"`   // what was already sent in the window
	Adding payouts.Money `json:"adding"` // what this request adds
	Limit  payouts.Money `json:"limit"`
	Window time.Duration `json:"window"` // zero for HoldRequest
}

// reasons returns why flows (one request's) wait, given what was already sent in the window to
// each payee (sentTo) and by each operator (sentBy); none when they may go.
func (p ApprovalPolicy) reasons(flows []Outflow, sentTo, sentBy map[string]payouts.Money) []HoldReason {
	if !p.On || len(flows) == 0 {
		return nil
	}
	var total payouts.Money
	toPayee, byOperator := map[string]payouts.Money{}, map[string]payouts.Money{}
	var payees, operators []string // in the order the flows name them, for a stable page
	for _, f := range flows {
		total += f.Amount
		if f.Payee != "" {
			if _, seen := toPayee[f.Payee]; !seen {
				payees = append(payees, f.Payee)
			}
			toPayee[f.Payee] += f.Amount
		}
		if _, seen := byOperator[f.OperatorID]; !seen {
			operators = append(operators, f.OperatorID)
		}
		byOperator[f.OperatorID] += f.Amount
	}
	var out []HoldReason
	if total > p.Above {
		out = append(out, HoldReason{Rule: HoldRequest, Adding: total, Limit: p.Above})
	}
	over := func(rule string, keys []string, adding, sent map[string]payouts.Money, limit payouts.Money) {
		for _, k := range keys {
			if limit > 0 && sent[k]+adding[k] > limit {
				out = append(out, HoldReason{Rule: rule, Who: k, Sent: sent[k], Adding: adding[k], Limit: limit, Window: p.Window})
			}
		}
	}
	over(HoldPayee, payees, toPayee, sentTo, p.PayeeLimit)
	over(HoldOperator, operators, byOperator, sentBy, p.OperatorLimit)
	return out
}

// PayeeRecord is what the service's own record says it sent one payee (a user) in the window:
// the total, and the ids of the transfers and payout links it was counted from, so that what the
// dashboard sent counts once, from the service's record as soon as that shows it.
type PayeeRecord struct {
	Sent payouts.Money
	IDs  map[string]bool
}

// AdmitOutflows decides by p whether one request's flows may go now. When they may, it records
// each as a pending attempt, in the same transaction, and returns the attempts' ids and no
// reasons: the caller sends the request and then settles the attempts (SettleSent,
// SettleRefused). Otherwise it records nothing and returns why they wait.
//
// A payee's total in the window is what record says the service sent them, with what the
// dashboard sent them that the record does not show yet (attempts still pending, links not
// claimed); an operator's is what the dashboard sent for them: attempts sent or pending. An
// attempt of exactly this request (the same idempotency key, kind, payee and amount: a form sent
// again) within KeyMemory is not counted against it, since the service makes one thing of the two. Deciding is
// serialized across every dashboard sharing the database (the write lock on SQLite, an advisory
// lock on PostgreSQL), so requests sent at once cannot each pass a limit they pass together.
func (s *Store) AdmitOutflows(ctx context.Context, p ApprovalPolicy, flows []Outflow, record map[string]PayeeRecord, now time.Time) (attempts []string, reasons []HoldReason, err error) {
	if !p.On || len(flows) == 0 {
		return nil, nil, nil
	}
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		attempts, reasons = nil, nil
		if err := s.lockSends(ctx, tx); err != nil {
			return err
		}
		window := sendWindow{since: sqldb.Micros(now.Add(-p.Window)), keySince: sqldb.Micros(now.Add(-KeyMemory))}
		var payees, operators []string
		for _, f := range flows {
			payees, operators = append(payees, f.Payee), append(operators, f.OperatorID)
		}
		sentTo, err := s.payeeTotals(ctx, tx, payees, record, flows, window)
		if err != nil {
			return err
		}
		sentBy, err := s.operatorTotals(ctx, tx, operators, flows, window)
		if err != nil {
			return err
		}
		if reasons = p.reasons(flows, sentTo, sentBy); len(reasons) > 0 {
			return nil
		}
		attempts, err = s.insertAttempts(ctx, tx, flows, now)
		return err
	})
	return attempts, reasons, err
}

// RecordOutflows counts flows a checker approved, whatever the limits, as pending attempts: they
// go out now. The caller settles them as AdmitOutflows' are.
func (s *Store) RecordOutflows(ctx context.Context, flows []Outflow, now time.Time) (attempts []string, err error) {
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockSends(ctx, tx); err != nil {
			return err
		}
		attempts, err = s.insertAttempts(ctx, tx, flows, now)
		return err
	})
	return attempts, err
}

// SettleSent records that the service made resultID (a transfer, a payout link) of the request
// whose one attempt is attempt. What one thing the service made counts once: an attempt that
// answered what another already recorded (a replay of its idempotency key) is dropped, as are the
// other attempts with the same key and kind still pending (sent again after no answer), since the
// service makes one thing of one key.
func (s *Store) SettleSent(ctx context.Context, attempt, resultID string) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockSends(ctx, tx); err != nil {
			return err
		}
		var key, kind string
		err := tx.QueryRowContext(ctx, s.db.Rebind(`SELECT outflow_key, kind FROM approval_sends WHERE attempt_id = ?`),
			attempt).Scan(&key, &kind)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // settled already, by an attempt with its key
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM approval_sends
			WHERE outflow_key = ? AND kind = ? AND state = ? AND attempt_id <> ?`), key, kind, sendPending, attempt); err != nil {
			return err
		}
		var known int
		if err := tx.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM approval_sends WHERE kind = ? AND result_id = ?`),
			kind, resultID).Scan(&known); err != nil {
			return err
		}
		if known > 0 {
			_, err = tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM approval_sends WHERE attempt_id = ?`), attempt)
			return err
		}
		_, err = tx.ExecContext(ctx, s.db.Rebind(`UPDATE approval_sends SET state = ?, result_id = ? WHERE attempt_id = ?`),
			sendSent, resultID, attempt)
		return err
	})
}

// SettleRefused stops counting attempts the service refused: they moved nothing. Only these
// attempts: an earlier request with the same idempotency key counts on.
func (s *Store) SettleRefused(ctx context.Context, attempts ...string) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		for chunk := range slices.Chunk(attempts, outflowsPerQuery) {
			if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM approval_sends WHERE attempt_id IN (`+
				placeholders(len(chunk))+`)`), anys(chunk)...); err != nil {
				return err
			}
		}
		return nil
	})
}

// The states of an attempt.
const (
	sendPending = "pending" // sent, or about to be, with no answer yet, or none ever (a timeout)
	sendSent    = "sent"    // the service made result_id
)

// lockSends serializes, on PostgreSQL, the transactions that decide on or change attempts
// across dashboards; on SQLite the database's one writer does.
func (s *Store) lockSends(ctx context.Context, tx *sql.Tx) error {
	if s.db.Dialect != sqldb.Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('approval_sends'))`)
	return err
}

// outflowsPerQuery bounds the keys one IN list carries, well inside sqldb.MaxParams.
const outflowsPerQuery = 500

// attemptRow is a recorded attempt, as the totals read it.
type attemptRow struct {
	key, kind, payee, operator, state, result string
	amount                                    payouts.Money
	created                                   int64 // micros
}

// KeyMemory is how long the service answers an idempotency key with what it first made: payoutd's
// (service.IdempotencyWindow), as the public API's is taken to be. After it, the same key makes a
// new thing, and an attempt with it counts as new.
const KeyMemory = 24 * time.Hour

// replays reports whether r is an attempt of one of flows itself, recent enough (since keySince,
// micros) that the service answers the two with one thing: the same key, kind, payee and amount.
func (r attemptRow) replays(flows []Outflow, keySince int64) bool {
	return r.created > keySince && slices.ContainsFunc(flows, func(f Outflow) bool {
		return f.Key == r.key && f.Kind == r.kind && f.Payee == r.payee && f.Amount == r.amount
	})
}

// sendWindow is what the totals of one decision read: attempts since (micros), of which those
// since keySince may be replays of the request decided on.
type sendWindow struct{ since, keySince int64 }

// payeeTotals adds up, for each payee, what record says the service sent them and the attempts
// of the window that it does not show: pending ones, and those sent whose result it does not name.
func (s *Store) payeeTotals(ctx context.Context, tx *sql.Tx, payees []string, record map[string]PayeeRecord, flows []Outflow, w sendWindow) (map[string]payouts.Money, error) {
	sent := map[string]payouts.Money{}
	for p, r := range record {
		sent[p] = r.Sent
	}
	err := s.attemptsSince(ctx, tx, "payee", payees, w.since, func(r attemptRow) {
		if !r.replays(flows, w.keySince) && (r.state == sendPending || !record[r.payee].IDs[r.result]) {
			sent[r.payee] += r.amount
		}
	})
	return sent, err
}

// operatorTotals adds up, for each operator, the attempts of the window they made.
func (s *Store) operatorTotals(ctx context.Context, tx *sql.Tx, operators []string, flows []Outflow, w sendWindow) (map[string]payouts.Money, error) {
	sent := map[string]payouts.Money{}
	err := s.attemptsSince(ctx, tx, "operator_id", operators, w.since, func(r attemptRow) {
		if !r.replays(flows, w.keySince) {
			sent[r.operator] += r.amount
		}
	})
	return sent, err
}

// attemptsSince calls each with every attempt since (micros) whose column (payee or operator_id)
// is one of the non-empty keys.
func (s *Store) attemptsSince(ctx context.Context, tx *sql.Tx, column string, keys []string, since int64, each func(attemptRow)) error {
	keys = slices.Compact(slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "" }))))
	for chunk := range slices.Chunk(keys, outflowsPerQuery) {
		rows, err := tx.QueryContext(ctx, s.db.Rebind(`SELECT outflow_key, kind, payee, operator_id, state, result_id, amount,
			created_at FROM approval_sends WHERE created_at > ? AND `+column+` IN (`+placeholders(len(chunk))+`)`),
			append([]any{since}, anys(chunk)...)...)
		if err != nil {
			return err
		}
		found, err := sqldb.All(rows, func(rows *sql.Rows) (attemptRow, error) {
			var r attemptRow
			return r, rows.Scan(&r.key, &r.kind, &r.payee, &r.operator, &r.state, &r.result, &r.amount, &r.created)
		})
		if err != nil {
			return err
		}
		for _, r := range found {
			each(r)
		}
	}
	return nil
}

// insertAttempts records flows at now as pending attempts and returns their ids, in order.
func (s *Store) insertAttempts(ctx context.Context, tx *sql.Tx, flows []Outflow, now time.Time) ([]string, error) {
	ids := make([]string, len(flows))
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	return ids, sqldb.InsertRows(s.db.Dialect, len(flows), outflowsPerQuery/8, `INSERT INTO approval_sends (attempt_id, outflow_key,
		kind, payee, operator_id, amount, state, created_at)`, func(i int) []any {
		f := flows[i]
		return []any{ids[i], f.Key, f.Kind, f.Payee, f.OperatorID, f.Amount, sendPending, sqldb.Micros(now)}
	}, ``, func(query string, args []any) error {
		_, err := tx.ExecContext(ctx, s.db.Rebind(query), args...)
		return err
	})
}

// placeholders is n comma-separated ? placeholders.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
