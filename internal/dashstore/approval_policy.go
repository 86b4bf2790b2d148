package dashstore

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// ApprovalPolicy is the maker-checker rule. A request the dashboard would send (a payout, a
// payout link, money moved into a user's wallet, a bulk file) waits for a second operator whose
// role is one of Approvers when it is more than Above on its own, or when, with what the
// dashboard already sent in the last Window, it would take one of its payees past PayeeLimit or
// its operator past OperatorLimit. So splitting a sum into many requests holds the request that
// crosses the limit. Store.AdmitOutflows is the one place that decides.
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

// AdmitOutflows decides by p whether one request's flows may go now. When they may, it records
// them, in the same transaction, and returns no reasons: the caller sends the request. Otherwise
// it records nothing and returns why they wait. Flows already recorded (a form sent again) are
// not counted twice. Deciding is serialized across every dashboard sharing the database (the
// write lock on SQLite, an advisory lock on PostgreSQL), so requests sent at once cannot each
// pass a limit they pass together.
func (s *Store) AdmitOutflows(ctx context.Context, p ApprovalPolicy, flows []Outflow, now time.Time) ([]HoldReason, error) {
	if !p.On || len(flows) == 0 {
		return nil, nil
	}
	var reasons []HoldReason
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		reasons = nil
		if s.db.Dialect == sqldb.Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('approval_outflows'))`); err != nil {
				return err
			}
		}
		fresh, err := s.unrecorded(ctx, tx, flows)
		if err != nil || len(fresh) == 0 {
			return err
		}
		since := sqldb.Micros(now.Add(-p.Window))
		var payees, operators []string
		for _, f := range fresh {
			payees, operators = append(payees, f.Payee), append(operators, f.OperatorID)
		}
		sentTo, err := s.sentSince(ctx, tx, "payee", payees, since)
		if err != nil {
			return err
		}
		sentBy, err := s.sentSince(ctx, tx, "operator_id", operators, since)
		if err != nil {
			return err
		}
		if reasons = p.reasons(fresh, sentTo, sentBy); len(reasons) > 0 {
			return nil
		}
		return s.insertOutflows(ctx, tx, fresh, now)
	})
	return reasons, err
}

// RecordOutflows counts flows a checker approved, whatever the limits: they go out now.
func (s *Store) RecordOutflows(ctx context.Context, flows []Outflow, now time.Time) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error { return s.insertOutflows(ctx, tx, flows, now) })
}

// ReleaseOutflows stops counting the flows with keys: the service refused their request, so
// nothing moved.
func (s *Store) ReleaseOutflows(ctx context.Context, keys ...string) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		for chunk := range slices.Chunk(keys, outflowsPerQuery) {
			if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM approval_outflows WHERE outflow_key IN (`+
				placeholders(len(chunk))+`)`), anys(chunk)...); err != nil {
				return err
			}
		}
		return nil
	})
}

// outflowsPerQuery bounds the keys one IN list carries, well inside sqldb.MaxParams.
const outflowsPerQuery = 500

// unrecorded returns the flows whose keys are not recorded yet.
func (s *Store) unrecorded(ctx context.Context, tx *sql.Tx, flows []Outflow) ([]Outflow, error) {
	keys := make([]string, len(flows))
	for i, f := range flows {
		keys[i] = f.Key
	}
	known := map[string]bool{}
	for chunk := range slices.Chunk(keys, outflowsPerQuery) {
		rows, err := tx.QueryContext(ctx, s.db.Rebind(`SELECT outflow_key FROM approval_outflows WHERE outflow_key IN (`+
			placeholders(len(chunk))+`)`), anys(chunk)...)
		if err != nil {
			return nil, err
		}
		found, err := sqldb.All(rows, func(rows *sql.Rows) (string, error) {
			var k string
			return k, rows.Scan(&k)
		})
		if err != nil {
			return nil, err
		}
		for _, k := range found {
			known[k] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(flows), func(f Outflow) bool { return known[f.Key] }), nil
}

// sentSince adds up the outflows since (micros) by column (payee or operator_id), for the
// non-empty values of keys.
func (s *Store) sentSince(ctx context.Context, tx *sql.Tx, column string, keys []string, since int64) (map[string]payouts.Money, error) {
	keys = slices.Compact(slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "" }))))
	sent := make(map[string]payouts.Money, len(keys))
	for chunk := range slices.Chunk(keys, outflowsPerQuery) {
		rows, err := tx.QueryContext(ctx, s.db.Rebind(`SELECT `+column+`, CAST(SUM(amount) AS BIGINT) FROM approval_outflows
			WHERE created_at > ? AND `+column+` IN (`+placeholders(len(chunk))+`) GROUP BY `+column),
			append([]any{since}, anys(chunk)...)...)
		if err != nil {
			return nil, err
		}
		type total struct {
			key string
			sum payouts.Money
		}
		totals, err := sqldb.All(rows, func(rows *sql.Rows) (total, error) {
			var t total
			return t, rows.Scan(&t.key, &t.sum)
		})
		if err != nil {
			return nil, err
		}
		for _, t := range totals {
			sent[t.key] = t.sum
		}
	}
	return sent, nil
}

// insertOutflows records flows at now; one already recorded stays as it was.
func (s *Store) insertOutflows(ctx context.Context, tx *sql.Tx, flows []Outflow, now time.Time) error {
	return sqldb.InsertRows(s.db.Dialect, len(flows), outflowsPerQuery/6, `INSERT INTO approval_outflows (outflow_key, kind,
		payee, operator_id, amount, created_at)`, func(i int) []any {
		f := flows[i]
		return []any{f.Key, f.Kind, f.Payee, f.OperatorID, f.Amount, sqldb.Micros(now)}
	}, ` ON CONFLICT (outflow_key) DO NOTHING`, func(query string, args []any) error {
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
