package store

import (
	"context"
	"database/sql"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const orgTransferColumns = `seq, id, organization_id, app_id, amount, status, metadata, idempotency_key, created`

func scanOrgTransfer(row interface{ Scan(...any) error }) (service.OrganizationTransferRecord, error) {
	var t service.OrganizationTransferRecord
	var md sql.NullString
	var created int64
	err := row.Scan(&t.Seq, &t.ID, &t.OrganizationID, &t.APIAppID, &t.Amount, &t.Status, &md, &t.IdempotencyKey, &created)
	if err != nil {
		return t, noRecord(err)
	}
	t.Metadata, t.Created = metadataOf(md), payouts.NewTime(sqldb.FromMicros(created))
	return t, nil
}

// CreateOrganizationTransfer inserts an organization transfer.
func (q *Queries) CreateOrganizationTransfer(ctx context.Context, t *service.OrganizationTransferRecord) (err error) {
	defer wrap(&err, "create organization transfer %s", t.ID)
	return q.queryRowTouching(ctx, writingOthers, `INSERT INTO organization_transfers (id, organization_id, app_id, amount, status, metadata,
		idempotency_key, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		t.ID, t.OrganizationID, t.APIAppID, int64(t.Amount), t.Status, metadataValue(t.Metadata), t.IdempotencyKey,
		sqldb.Micros(t.Created.Time)).Scan(&t.Seq)
}

// GetOrganizationTransfer reads one transfer of the organization.
func (q *Queries) GetOrganizationTransfer(ctx context.Context, orgID, id string) (_ *service.OrganizationTransferRecord, err error) {
	defer wrap(&err, "get organization transfer %s", id)
	t, err := scanOrgTransfer(q.queryRowTouching(ctx, readingOthers, `SELECT `+orgTransferColumns+` FROM organization_transfers
		WHERE organization_id = ? AND id = ?`, orgID, id))
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// ListOrganizationTransfers reads a page of the organization's transfers, newest first.
func (q *Queries) ListOrganizationTransfers(ctx context.Context, orgID string, page payouts.Page) (_ []service.OrganizationTransferRecord, _ bool, err error) {
	defer wrap(&err, "list transfers of organization %s", orgID)
	l := listQuery{selectFrom: `SELECT ` + orgTransferColumns + ` FROM organization_transfers`, order: "seq",
		cursor: q.seqCursorOf("organization_transfers", "organization_id", orgID)}
	l.filter("organization_id = ?", orgID)
	return run(ctx, q, l, page, func(r *sql.Rows) (service.OrganizationTransferRecord, error) { return scanOrgTransfer(r) })
}
