package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/disburse/disburse/internal/service"
)

// KeyCheck reads the check value of the encryption key; ErrNoRecord before one is recorded.
func (q *Queries) KeyCheck(ctx context.Context) (_ []byte, err error) {
	defer wrap(&err, "read the key's check value")
	var sealed []byte
	err = q.queryRowTouching(ctx, readingOthers, `SELECT sealed FROM key_check WHERE id = 1`).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, service.ErrNoRecord
	}
	return sealed, err
}

// RecordKeyCheck records the check value of the encryption key, unless one is recorded already:
// the first kept wins, and KeyCheck reads which.
func (q *Queries) RecordKeyCheck(ctx context.Context, sealed []byte) (err error) {
	defer wrap(&err, "record the key's check value")
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO key_check (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, sealed)
	return err
}

// sealedSamples are the statements reading the oldest sealed value of each kind: its owner (the
// id its associated data names) and the sealed bytes.
var sealedSamples = []struct {
	kind  service.SealedKind
	reads touching
	query string
}{
	{service.SealedAppBank, reading(appsTable), `SELECT id, bank_sealed FROM apps WHERE bank_sealed IS NOT NULL ORDER BY created, id LIMIT 1`},
	{service.SealedAppCompliance, reading(appsTable), `SELECT id, compliance_sealed FROM apps WHERE compliance_sealed IS NOT NULL ORDER BY created, id LIMIT 1`},
	{service.SealedAccount, reading(payoutMethodsTable), `SELECT user_id, sealed_account FROM payout_methods WHERE sealed_account IS NOT NULL ORDER BY seq LIMIT 1`},
	{service.SealedTaxForm, readingOthers, `SELECT user_id, sealed FROM tax_forms ORDER BY id LIMIT 1`},
	{service.SealedTaxReturn, readingOthers, `SELECT id, sealed FROM tax_returns ORDER BY created, id LIMIT 1`},
	{service.SealedWebhookSecret, reading(endpointsTable), `SELECT id, secret FROM webhook_endpoints ORDER BY seq LIMIT 1`},
	{service.SealedMessage, readingOthers, `SELECT app_id, body FROM sandbox_messages ORDER BY id LIMIT 1`},
}

// SealedSamples reads the oldest sealed value of each kind the database keeps, none of a kind
// it has none of.
func (q *Queries) SealedSamples(ctx context.Context) (_ []service.SealedValue, err error) {
	defer wrap(&err, "read sealed values")
	var out []service.SealedValue
	for _, s := range sealedSamples {
		v := service.SealedValue{Kind: s.kind}
		err := q.queryRowTouching(ctx, s.reads, s.query).Scan(&v.Owner, &v.Sealed)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
