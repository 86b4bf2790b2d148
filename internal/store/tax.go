package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// ReportablePayments sums, per user, what the app's payouts paid them in [from, to) as 1099-NEC
// box 1 counts it, from the ledger alone. A payout is dated by when its payout line was posted
// (it settled on its rail); it counts the lines that left the user's wallet (the payout and a fee
// the user paid) less the lines that came back to it (a returned payout is reversed line by line,
// whenever it came back). A fee the app paid never touches the user's wallet, balance lines are
// money kept in the wallet, and a payout the app marked tax exempt counts nowhere.
func (q *Queries) ReportablePayments(ctx context.Context, appID string, from, to time.Time) (_ map[string]payouts.Money, err error) {
	defer wrap(&err, "reportable payments of app %s", appID)
	rows, err := q.queryTouching(ctx, reading(transfersTable|postingsTable|accountsTable), `
		SELECT t.user_id, SUM(CASE WHEN p.debit_account = w.id THEN p.amount ELSE -p.amount END)
		FROM transfers t
		JOIN ledger_accounts w ON w.app_id = t.app_id AND w.kind = 'user_wallet' AND w.ref = t.user_id
		JOIN postings p ON p.transfer_id = t.id AND p.state = 'posted' AND p.type IN ('payout', 'fee')
			AND (p.debit_account = w.id OR p.credit_account = w.id)
		WHERE t.app_id = ? AND t.type = 'payout' AND NOT t.tax_exempt
			AND (SELECT MIN(o.posted) FROM postings o WHERE o.transfer_id = t.id AND o.type = 'payout'
				AND o.state = 'posted' AND o.debit_account = w.id) >= ?
			AND (SELECT MIN(o.posted) FROM postings o WHERE o.transfer_id = t.id AND o.type = 'payout'
				AND o.state = 'posted' AND o.debit_account = w.id) < ?
		GROUP BY t.user_id`, appID, sqldb.Micros(from), sqldb.Micros(to))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]payouts.Money{}
	for rows.Next() {
		var user string
		var amount int64
		if err := rows.Scan(&user, &amount); err != nil {
			return nil, err
		}
		if amount != 0 {
			out[user] = payouts.Money(amount)
		}
	}
	return out, rows.Err()
}

// TaxFormsInForce reads the latest tax form of each of the app's users who gave one.
func (q *Queries) TaxFormsInForce(ctx context.Context, appID string) (_ map[string]service.TaxFormRecord, err error) {
	defer wrap(&err, "tax forms of app %s", appID)
	rows, err := q.queryTouching(ctx, readingOthers, `SELECT user_id, kind, sealed, tin_last4, created FROM tax_forms
		WHERE id IN (SELECT MAX(id) FROM tax_forms WHERE app_id = ? GROUP BY user_id)`, appID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]service.TaxFormRecord{}
	for rows.Next() {
		f := service.TaxFormRecord{AppID: appID}
		var created int64
		if err := rows.Scan(&f.UserID, &f.Kind, &f.Sealed, &f.TINLast4, &created); err != nil {
			return nil, err
		}
		f.Created = sqldb.FromMicros(created)
		out[f.UserID] = f
	}
	return out, rows.Err()
}

const taxReturnColumns = `id, app_id, user_id, year, amount, status, corrects, sealed, tin_last4, created`

// SaveTaxReturn stores a version of a payee's 1099-NEC.
func (q *Queries) SaveTaxReturn(ctx context.Context, r *service.TaxReturnRecord) (err error) {
	defer wrap(&err, "save tax return %s", r.ID)
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO tax_returns (`+taxReturnColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.AppID, r.UserID, r.Year, int64(r.Amount), r.Status, r.Corrects, r.Sealed, r.TINLast4, sqldb.Micros(r.Created))
	return err
}

// TaxReturns reads every version of the app's 1099-NEC forms for year, of one user when userID
// is not empty, oldest first.
func (q *Queries) TaxReturns(ctx context.Context, appID string, year int, userID string) (_ []service.TaxReturnRecord, err error) {
	defer wrap(&err, "tax returns of app %s in %d", appID, year)
	query := `SELECT ` + taxReturnColumns + ` FROM tax_returns WHERE app_id = ? AND year = ?`
	args := []any{appID, year}
	if userID != "" {
		query += ` AND user_id = ?`
		args = append(args, userID)
	}
	rows, err := q.queryTouching(ctx, readingOthers, query+` ORDER BY created, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.TaxReturnRecord
	for rows.Next() {
		r, err := scanTaxReturn(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// GetTaxReturn reads one version of a form of the app.
func (q *Queries) GetTaxReturn(ctx context.Context, appID, id string) (_ *service.TaxReturnRecord, err error) {
	defer wrap(&err, "tax return %s", id)
	r, err := scanTaxReturn(q.queryRowTouching(ctx, readingOthers, `SELECT `+taxReturnColumns+` FROM tax_returns WHERE app_id = ? AND id = ?`, appID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, service.ErrNoRecord
	}
	return &r, err
}

func scanTaxReturn(row interface{ Scan(...any) error }) (service.TaxReturnRecord, error) {
	var r service.TaxReturnRecord
	var amount, created int64
	err := row.Scan(&r.ID, &r.AppID, &r.UserID, &r.Year, &amount, &r.Status, &r.Corrects, &r.Sealed, &r.TINLast4, &created)
	r.Amount, r.Created = payouts.Money(amount), sqldb.FromMicros(created)
	return r, err
}

// SaveTaxConsent records that a payee agreed to electronic delivery; agreeing again keeps the
// first time, unless the consent was withdrawn since.
func (q *Queries) SaveTaxConsent(ctx context.Context, appID, userID string, at time.Time) (err error) {
	defer wrap(&err, "save tax consent of user %s", userID)
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO tax_consents (app_id, user_id, consented) VALUES (?, ?, ?)
		ON CONFLICT (app_id, user_id) DO UPDATE SET consented = excluded.consented, withdrawn = 0
		WHERE tax_consents.withdrawn <> 0`, appID, userID, sqldb.Micros(at))
	return err
}

// WithdrawTaxConsent records that a payee withdrew the consent they gave.
func (q *Queries) WithdrawTaxConsent(ctx context.Context, appID, userID string, at time.Time) (err error) {
	defer wrap(&err, "withdraw tax consent of user %s", userID)
	_, err = q.execTouching(ctx, writingOthers, `UPDATE tax_consents SET withdrawn = ? WHERE app_id = ? AND user_id = ? AND withdrawn = 0`,
		sqldb.Micros(at), appID, userID)
	return err
}

// TaxConsents reads which of the app's users agreed to electronic delivery, when, and when they
// withdrew it if they did.
func (q *Queries) TaxConsents(ctx context.Context, appID string) (_ map[string]service.TaxConsent, err error) {
	defer wrap(&err, "tax consents of app %s", appID)
	rows, err := q.queryTouching(ctx, readingOthers, `SELECT user_id, consented, withdrawn FROM tax_consents WHERE app_id = ?`, appID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]service.TaxConsent{}
	for rows.Next() {
		var user string
		var at, withdrawn int64
		if err := rows.Scan(&user, &at, &withdrawn); err != nil {
			return nil, err
		}
		c := service.TaxConsent{Consented: sqldb.FromMicros(at)}
		if withdrawn != 0 {
			c.Withdrawn = sqldb.FromMicros(withdrawn)
		}
		out[user] = c
	}
	return out, rows.Err()
}
