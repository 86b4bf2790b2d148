package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

const apiKeyColumns = `id, app_id, name, last4, key_hash, created_by, created, expires_at, revoked_at, last_used_at`

func scanAPIKey(row interface{ Scan(...any) error }) (*service.APIKeyRecord, error) {
	var k service.APIKeyRecord
	var created int64
	var expires, revoked, used sql.NullInt64
	if err := row.Scan(&k.ID, &k.AppID, &k.Name, &k.Last4, &k.KeyHash, &k.CreatedBy, &created, &expires, &revoked,
		&used); err != nil {
		return nil, noRecord(err)
	}
	k.Created = sqldb.FromMicros(created)
	k.Expires, k.Revoked, k.LastUsed = timeOrZero(expires), timeOrZero(revoked), timeOrZero(used)
	return &k, nil
}

// nullMicros stores the zero time as NULL.
func nullMicros(t time.Time) sql.NullInt64 {
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: !t.IsZero()}
}

func timeOrZero(us sql.NullInt64) time.Time {
	if !us.Valid {
		return time.Time{}
	}
	return sqldb.FromMicros(us.Int64)
}

// CreateAPIKey inserts an API key.
func (q *Queries) CreateAPIKey(ctx context.Context, k *service.APIKeyRecord) (err error) {
	defer wrap(&err, "create API key %s", k.ID)
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO api_keys (`+apiKeyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.AppID, k.Name, k.Last4, k.KeyHash, k.CreatedBy, sqldb.Micros(k.Created), nullMicros(k.Expires),
		nullMicros(k.Revoked), nullMicros(k.LastUsed))
	return err
}

// UpdateAPIKey writes a key's expiry and revocation.
func (q *Queries) UpdateAPIKey(ctx context.Context, k *service.APIKeyRecord) (err error) {
	defer wrap(&err, "update API key %s", k.ID)
	return q.execOne(ctx, writingOthers, `UPDATE api_keys SET expires_at = ?, revoked_at = ? WHERE id = ?`,
		nullMicros(k.Expires), nullMicros(k.Revoked), k.ID)
}

// TouchAPIKey writes a key's last use.
func (q *Queries) TouchAPIKey(ctx context.Context, id string, at time.Time) (err error) {
	defer wrap(&err, "touch API key %s", id)
	return q.execOne(ctx, writingOthers, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, sqldb.Micros(at), id)
}

// APIKeyByHash reads the key whose SHA-256 is hash.
func (q *Queries) APIKeyByHash(ctx context.Context, hash []byte) (_ *service.APIKeyRecord, err error) {
	defer wrap(&err, "API key by hash")
	return scanAPIKey(q.queryRowTouching(ctx, readingOthers, `SELECT `+apiKeyColumns+` FROM api_keys WHERE key_hash = ?`, hash))
}

// GetAPIKey reads a key of an app.
func (q *Queries) GetAPIKey(ctx context.Context, appID, id string) (_ *service.APIKeyRecord, err error) {
	defer wrap(&err, "get API key %s", id)
	return scanAPIKey(q.queryRowTouching(ctx, readingOthers, `SELECT `+apiKeyColumns+` FROM api_keys WHERE app_id = ? AND id = ?`,
		appID, id))
}

// ListAPIKeys reads every key of an app, newest first; an app has a handful.
func (q *Queries) ListAPIKeys(ctx context.Context, appID string) (_ []service.APIKeyRecord, err error) {
	defer wrap(&err, "list API keys of app %s", appID)
	rows, err := q.queryTouching(ctx, readingOthers, `SELECT `+apiKeyColumns+` FROM api_keys WHERE app_id = ?
		ORDER BY created DESC, id DESC`, appID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.APIKeyRecord
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *k)
	}
	return out, rows.Err()
}
