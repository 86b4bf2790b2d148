package store

import (
	"context"
	"database/sql"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const appColumns = `id, kind, organization_id, name, client_id, status, metadata, seq, created,
	bank_routing, bank_account_type, bank_last4, bank_sealed, compliance_sealed`

func scanApp(row interface{ Scan(...any) error }) (*service.AppRecord, error) {
	var a service.AppRecord
	var orgID, md sql.NullString
	var seq sql.NullInt64
	var created int64
	if err := row.Scan(&a.ID, &a.Kind, &orgID, &a.Name, &a.ClientID, &a.Status, &md, &seq, &created,
		&a.BankRouting, &a.BankAccountType, &a.BankLast4, &a.BankSealed, &a.ComplianceSealed); err != nil {
		return nil, noRecord(err)
	}
	a.OrganizationID, a.Metadata, a.Seq = orgID.String, metadataOf(md), seq.Int64
	a.Created = sqldb.FromMicros(created)
	return &a, nil
}

func scanApps(rows *sql.Rows, err error) ([]service.AppRecord, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.AppRecord
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}

// CreateApp inserts an app or an organization.
func (q *Queries) CreateApp(ctx context.Context, a *service.AppRecord) (err error) {
	defer wrap(&err, "create app %s", a.ID)
	_, err = q.execTouching(ctx, writing(appsTable), `INSERT INTO apps (id, kind, organization_id, name, client_id, status, metadata,
		created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.Kind, nullString(a.OrganizationID), a.Name, a.ClientID, a.Status, metadataValue(a.Metadata),
		sqldb.Micros(a.Created))
	return err
}

// UpdateApp writes what changes of an app: its organization, status, metadata, bank account and
// compliance details.
func (q *Queries) UpdateApp(ctx context.Context, a *service.AppRecord) (err error) {
	defer wrap(&err, "update app %s", a.ID)
	return q.execOne(ctx, writing(appsTable), `UPDATE apps SET organization_id = ?, status = ?, metadata = ?, bank_routing = ?,
		bank_account_type = ?, bank_last4 = ?, bank_sealed = ?, compliance_sealed = ? WHERE id = ?`,
		nullString(a.OrganizationID), a.Status, metadataValue(a.Metadata), a.BankRouting, a.BankAccountType,
		a.BankLast4, a.BankSealed, a.ComplianceSealed, a.ID)
}

// GetApp reads an app or an organization by id.
func (q *Queries) GetApp(ctx context.Context, id string) (_ *service.AppRecord, err error) {
	defer wrap(&err, "get app %s", id)
	if a, ok := q.batchReads().app(id); ok {
		return a, nil
	}
	a, err := scanApp(q.queryRowTouching(ctx, reading(appsTable), `SELECT `+appColumns+` FROM apps WHERE id = ?`, id))
	if err == nil {
		q.job.keepApp(a)
	}
	return a, err
}

// AppByClientID reads the app or organization with this API client id.
func (q *Queries) AppByClientID(ctx context.Context, clientID string) (_ *service.AppRecord, err error) {
	defer wrap(&err, "app by client id %s", clientID)
	return scanApp(q.queryRowTouching(ctx, reading(appsTable), `SELECT `+appColumns+` FROM apps WHERE client_id = ?`, clientID))
}

// ListApps reads every app (not organizations), oldest first.
func (q *Queries) ListApps(ctx context.Context) (_ []service.AppRecord, err error) {
	defer wrap(&err, "list apps")
	return scanApps(q.queryTouching(ctx, reading(appsTable), `SELECT `+appColumns+` FROM apps WHERE kind = ? ORDER BY created, id`, service.KindApp))
}

// ListOrganizations reads every organization, oldest first.
func (q *Queries) ListOrganizations(ctx context.Context) (_ []service.AppRecord, err error) {
	defer wrap(&err, "list organizations")
	return scanApps(q.queryTouching(ctx, reading(appsTable), `SELECT `+appColumns+` FROM apps WHERE kind = ? ORDER BY created, id`,
		service.KindOrganization))
}

// ListOrganizationApps reads a page of an organization's apps, newest first.
func (q *Queries) ListOrganizationApps(ctx context.Context, orgID string, page payouts.Page) (_ []service.AppRecord, _ bool, err error) {
	defer wrap(&err, "list apps of organization %s", orgID)
	l := listQuery{selectFrom: `SELECT ` + appColumns + ` FROM apps`, order: "seq",
		cursor: q.seqCursorOf("apps", "organization_id", orgID)}
	l.filter("organization_id = ?", orgID)
	l.filter("kind = ?", service.KindApp)
	return run(ctx, q, l, page, func(r *sql.Rows) (service.AppRecord, error) {
		a, err := scanApp(r)
		if err != nil {
			return service.AppRecord{}, err
		}
		return *a, nil
	})
}

// AppMetrics counts the app's users and sums what left it on rails: the posted credits of its
// clearing accounts.
func (q *Queries) AppMetrics(ctx context.Context, appID string) (_ int, _ payouts.Money, err error) {
	defer wrap(&err, "metrics of app %s", appID)
	var users int
	var out int64
	err = q.queryRow(ctx, `SELECT (SELECT COUNT(*) FROM users WHERE app_id = ? AND deleted_at IS NULL),
		(SELECT COALESCE(SUM(credits_posted), 0) FROM ledger_accounts WHERE app_id = ? AND kind = ?)`,
		appID, appID, ledger.Clearing).Scan(&users, &out)
	return users, payouts.Money(out), err
}
