package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

// ClaimIdempotencyKey takes a key for a request. It returns nil when the key was free and is now
// this request's, or the earlier request's record when the key was taken. On PostgreSQL a
// concurrent claim of the same key waits here until the first transaction ends. A record with a
// ResourceID takes the key finished: no FinishIdempotencyKey is needed.
func (q *Queries) ClaimIdempotencyKey(ctx context.Context, k *service.IdempotencyRecord) (_ *service.IdempotencyRecord, err error) {
	defer wrap(&err, "claim idempotency key %s", k.Key)
	res, err := q.exec(ctx, `INSERT INTO idempotency_keys (app_id, key, operation, request_hash, resource_id, created)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (app_id, key) DO NOTHING`,
		k.AppID, k.Key, k.Operation, k.RequestHash, nullString(k.ResourceID), sqldb.Micros(k.Created))
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return nil, err
	}
	prior := service.IdempotencyRecord{AppID: k.AppID, Key: k.Key}
	var resource sql.NullString
	var created int64
	err = q.queryRow(ctx, `SELECT operation, request_hash, resource_id, created FROM idempotency_keys
		WHERE app_id = ? AND key = ?`, k.AppID, k.Key).Scan(&prior.Operation, &prior.RequestHash, &resource, &created)
	if err != nil {
		return nil, err
	}
	prior.ResourceID, prior.Created = resource.String, sqldb.FromMicros(created)
	return &prior, nil
}

// FinishIdempotencyKey records the resource a key's request made.
func (q *Queries) FinishIdempotencyKey(ctx context.Context, appID, key, resourceID string) error {
	return q.FinishIdempotencyKeys(ctx, appID, []string{key}, map[string]string{key: resourceID})
}

// FinishIdempotencyKeys records the resource each key's request made, a few hundred keys per
// statement.
func (q *Queries) FinishIdempotencyKeys(ctx context.Context, appID string, keys []string, resourceIDs map[string]string) (err error) {
	defer wrap(&err, "finish %d idempotency keys", len(keys))
	for start := 0; start < len(keys); start += itemsPerInsert {
		part := keys[start:min(start+itemsPerInsert, len(keys))]
		var cases strings.Builder
		args := make([]any, 0, 3*len(part)+1)
		for _, k := range part {
			cases.WriteString(" WHEN ? THEN ?")
			args = append(args, k, resourceIDs[k])
		}
		marks, in := appAndIDs(appID, part)
		res, err := q.exec(ctx, `UPDATE idempotency_keys SET resource_id = CASE key`+cases.String()+` END
			WHERE app_id = ? AND key IN (`+marks+`)`, append(args, in...)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != int64(len(part)) {
			return errors.Join(err, service.ErrNoRecord)
		}
	}
	return nil
}

// ClaimIdempotencyKeys takes the free ones of keys, a few hundred per statement, and returns
// them; a taken key is left as it is, for ClaimIdempotencyKey to answer. On PostgreSQL a
// concurrent claim of a key taken here waits until this transaction ends.
func (q *Queries) ClaimIdempotencyKeys(ctx context.Context, keys []service.IdempotencyRecord) (_ []string, err error) {
	defer wrap(&err, "claim %d idempotency keys", len(keys))
	var claimed []string
	err = q.insertRows(ctx, `INSERT INTO idempotency_keys (app_id, key, operation, request_hash, created)`, len(keys),
		func(i int) []any {
			k := keys[i]
			return []any{k.AppID, k.Key, k.Operation, k.RequestHash, sqldb.Micros(k.Created)}
		}, `ON CONFLICT (app_id, key) DO NOTHING RETURNING key`, func(r *sql.Rows) error {
			var key string
			err := r.Scan(&key)
			claimed = append(claimed, key)
			return err
		})
	return claimed, err
}

// ReleaseIdempotencyKey forgets a key.
func (q *Queries) ReleaseIdempotencyKey(ctx context.Context, appID, key string) error {
	return q.ReleaseIdempotencyKeys(ctx, appID, []string{key})
}

// ReleaseIdempotencyKeys forgets keys, in one statement per few hundred.
func (q *Queries) ReleaseIdempotencyKeys(ctx context.Context, appID string, keys []string) (err error) {
	defer wrap(&err, "release %d idempotency keys", len(keys))
	for start := 0; start < len(keys); start += itemsPerInsert {
		marks, args := appAndIDs(appID, keys[start:min(start+itemsPerInsert, len(keys))])
		if _, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE app_id = ? AND key IN (`+marks+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// PurgeIdempotencyKeys forgets keys made before the given time and returns how many.
func (q *Queries) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (_ int64, err error) {
	defer wrap(&err, "purge idempotency keys")
	res, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE created < ?`, sqldb.Micros(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
