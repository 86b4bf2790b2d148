package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// SaveTaxForm stores a sealed tax form; the latest one is the one in force.
func (q *Queries) SaveTaxForm(ctx context.Context, f *service.TaxFormRecord) (err error) {
	defer wrap(&err, "save tax form of user %s", f.UserID)
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO tax_forms (app_id, user_id, kind, sealed, tin_last4, created) VALUES (?, ?, ?, ?, ?, ?)`,
		f.AppID, f.UserID, f.Kind, f.Sealed, f.TINLast4, sqldb.Micros(f.Created))
	return err
}

// LatestTaxForm reads the user's tax form in force, the latest filed.
func (q *Queries) LatestTaxForm(ctx context.Context, appID, userID string) (_ *service.TaxFormRecord, err error) {
	defer wrap(&err, "read tax form of user %s", userID)
	f := service.TaxFormRecord{AppID: appID, UserID: userID}
	var created int64
	err = q.queryRowTouching(ctx, readingOthers, `SELECT kind, sealed, tin_last4, created FROM tax_forms
		WHERE app_id = ? AND user_id = ? ORDER BY id DESC LIMIT 1`, appID, userID).Scan(&f.Kind, &f.Sealed, &f.TINLast4, &created)
	if err != nil {
		return nil, noRecord(err)
	}
	f.Created = sqldb.FromMicros(created)
	return &f, nil
}

// YearlyPayments reads a user's payments in a calendar year, 0 when none were counted; in a
// write transaction, as its batch has them, with the additions it holds (yearlyTotal).
func (q *Queries) YearlyPayments(ctx context.Context, appID, userID string, year int) (_ payouts.Money, err error) {
	defer wrap(&err, "read %d payments of user %s", year, userID)
	if q.job != nil {
		return q.yearlyTotal(ctx, taxYear{appID, userID, year})
	}
	var total int64
	err = q.queryRowTouching(ctx, reading(taxYearsTable), `SELECT amount FROM tax_years WHERE app_id = ? AND user_id = ? AND year = ?`,
		appID, userID, year).Scan(&total)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return payouts.Money(total), err
}

// yearlyPayment is an addition to a user's payments in a calendar year (tax_years).
type yearlyPayment struct {
	AppID, UserID string
	Year          int
	Amount        int64
}

func (p yearlyPayment) key() taxYear { return taxYear{p.AppID, p.UserID, p.Year} }

var paymentWriter = writer[yearlyPayment]{
	insert: `INSERT INTO tax_years (app_id, user_id, year, amount)`,
	tail:   `ON CONFLICT (app_id, user_id, year) DO UPDATE SET amount = tax_years.amount + excluded.amount`,
	values: func(p *yearlyPayment) []any { return []any{p.AppID, p.UserID, p.Year, p.Amount} },
}
