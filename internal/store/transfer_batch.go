package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const batchColumns = `seq, id, app_id, status, metadata, idempotency_key, created, updated`

func scanBatch(row interface{ Scan(...any) error }) (service.TransferBatchRecord, error) {
	var b service.TransferBatchRecord
	var md sql.NullString
	var created, updated int64
	if err := row.Scan(&b.Seq, &b.ID, &b.AppID, &b.Status, &md, &b.IdempotencyKey, &created, &updated); err != nil {
		return b, noRecord(err)
	}
	b.Metadata = metadataOf(md)
	b.Created, b.Updated = payouts.NewTime(sqldb.FromMicros(created)), sqldb.FromMicros(updated)
	return b, nil
}

// CreateTransferBatch inserts a batch and its items, a few hundred rows per statement.
func (q *Queries) CreateTransferBatch(ctx context.Context, b *service.TransferBatchRecord) (err error) {
	defer wrap(&err, "create transfer batch %s", b.ID)
	err = q.queryRowTouching(ctx, writingOthers, `INSERT INTO transfer_batches (id, app_id, status, metadata, idempotency_key, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`, b.ID, b.AppID, b.Status, metadataValue(b.Metadata),
		b.IdempotencyKey, sqldb.Micros(b.Created.Time), sqldb.Micros(b.Updated)).Scan(&b.Seq)
	if err != nil {
		return err
	}
	return q.insertRows(ctx, writingOthers, `INSERT INTO transfer_batch_items (batch_id, position, amount, user_id, tax_exempt,
		allow_debit, idempotency_key, metadata)`, len(b.Items), func(i int) []any {
		it := b.Items[i]
		return []any{b.ID, i, it.Amount, it.UserID, it.TaxExempt, it.AllowDebit, it.IdempotencyKey,
			metadataValue(payouts.NormalizeMetadata(it.Metadata))}
	}, "", nil)
}

// GetTransferBatch reads one batch of the app with its items.
func (q *Queries) GetTransferBatch(ctx context.Context, appID, id string) (_ *service.TransferBatchRecord, err error) {
	defer wrap(&err, "get transfer batch %s", id)
	b, err := scanBatch(q.queryRowTouching(ctx, readingOthers, `SELECT `+batchColumns+` FROM transfer_batches WHERE app_id = ? AND id = ?`, appID, id))
	if err != nil {
		return nil, err
	}
	return &b, q.batchItems(ctx, &b)
}

func (q *Queries) batchItems(ctx context.Context, b *service.TransferBatchRecord) error {
	rows, err := q.queryTouching(ctx, readingOthers, `SELECT amount, user_id, tax_exempt, allow_debit, idempotency_key, metadata,
		transfer_id, error FROM transfer_batch_items WHERE batch_id = ? ORDER BY position`, b.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	b.Items = []payouts.TransferBatchItem{}
	for rows.Next() {
		var it payouts.TransferBatchItem
		var md, transferID, errText sql.NullString
		if err := rows.Scan(&it.Amount, &it.UserID, &it.TaxExempt, &it.AllowDebit, &it.IdempotencyKey, &md,
			&transferID, &errText); err != nil {
			return err
		}
		it.Metadata, it.TransferID, it.Error = metadataOf(md), stringPtr(transferID), stringPtr(errText)
		b.Items = append(b.Items, it)
	}
	return rows.Err()
}

// ListTransferBatches reads a page of the app's batches, newest first, without their items.
func (q *Queries) ListTransferBatches(ctx context.Context, appID string, page payouts.Page) (_ []service.TransferBatchRecord, _ bool, err error) {
	defer wrap(&err, "list transfer batches of app %s", appID)
	l := listQuery{selectFrom: `SELECT ` + batchColumns + ` FROM transfer_batches`, order: "seq",
		cursor: q.seqCursor("transfer_batches", appID)}
	l.filter("app_id = ?", appID)
	return run(ctx, q, l, page, func(r *sql.Rows) (service.TransferBatchRecord, error) { return scanBatch(r) })
}

// ClaimPendingBatch locks and returns the oldest pending batch with its items, skipping batches
// other workers hold; none is service.ErrNoRecord.
func (q *Queries) ClaimPendingBatch(ctx context.Context) (_ *service.TransferBatchRecord, err error) {
	defer wrap(&err, "claim a pending transfer batch")
	b, err := scanBatch(q.queryRowTouching(ctx, readingOthers, `SELECT `+batchColumns+` FROM transfer_batches WHERE status = ?
		ORDER BY seq LIMIT 1`+q.skipLocked(), payouts.BatchPending))
	if err != nil {
		return nil, err
	}
	return &b, q.batchItems(ctx, &b)
}

// SetBatchItemOutcomes records what items of a batch made, in one statement per few hundred
// items: a batch's chunk would otherwise cost a round trip per item.
func (q *Queries) SetBatchItemOutcomes(ctx context.Context, batchID string, outcomes []service.BatchItemOutcome) (err error) {
	defer wrap(&err, "set item outcomes of transfer batch %s", batchID)
	for start := 0; start < len(outcomes); start += itemsPerInsert {
		part := outcomes[start:min(start+itemsPerInsert, len(outcomes))]
		var transfers, errs, in strings.Builder
		var tArgs, eArgs, inArgs []any
		for i, o := range part {
			transfers.WriteString(" WHEN ? THEN ?")
			tArgs = append(tArgs, o.Position, nullString(o.TransferID))
			errs.WriteString(" WHEN ? THEN ?")
			eArgs = append(eArgs, o.Position, nullString(o.Error))
			if i > 0 {
				in.WriteString(", ")
			}
			in.WriteString("?")
			inArgs = append(inArgs, o.Position)
		}
		args := append(append(append(tArgs, eArgs...), batchID), inArgs...)
		res, err := q.exec(ctx, `UPDATE transfer_batch_items SET transfer_id = CASE position`+transfers.String()+` END,
			error = CASE position`+errs.String()+` END WHERE batch_id = ? AND position IN (`+in.String()+`)`, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != int64(len(part)) {
			return errors.Join(err, fmt.Errorf("updated %d items of %d", n, len(part)))
		}
	}
	return nil
}

// FinishTransferBatch marks a pending batch completed.
func (q *Queries) FinishTransferBatch(ctx context.Context, b *service.TransferBatchRecord) (err error) {
	defer wrap(&err, "finish transfer batch %s", b.ID)
	return q.execOne(ctx, writingOthers, `UPDATE transfer_batches SET status = ?, updated = ? WHERE app_id = ? AND id = ? AND status = ?`,
		payouts.BatchCompleted, sqldb.Micros(b.Updated), b.AppID, b.ID, payouts.BatchPending)
}
