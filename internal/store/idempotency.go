package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
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
	if taken, err := q.takeKeyClaimedAhead(ctx, k); err != nil || taken {
		return nil, err
	}
	res, err := q.execTouching(ctx, claimingKeys, `INSERT INTO idempotency_keys (app_id, key, operation, request_hash, resource_id, created)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (app_id, key) DO NOTHING`,
		k.AppID, k.Key, k.Operation, k.RequestHash, nullString(k.ResourceID), sqldb.Micros(k.Created))
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		if err == nil && q.job != nil {
			q.job.claimed = append(q.job.claimed, *k)
		}
		return nil, err
	}
	prior := service.IdempotencyRecord{AppID: k.AppID, Key: k.Key}
	var resource sql.NullString
	var created int64
	err = q.queryRowTouching(ctx, readingOthers, `SELECT operation, request_hash, resource_id, created FROM idempotency_keys
		WHERE app_id = ? AND key = ?`, k.AppID, k.Key).Scan(&prior.Operation, &prior.RequestHash, &resource, &created)
	if err != nil {
		return nil, err
	}
	prior.ResourceID, prior.Created = resource.String, sqldb.FromMicros(created)
	if q.claimedAheadFor(k.AppID, k.Key) {
		prior.ResourceID = "" // claimed for a job of this batch that has not taken it yet: still under way
	}
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
		res, err := q.execTouching(ctx, writingOthers, `UPDATE idempotency_keys SET resource_id = CASE key`+cases.String()+` END
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
	err = q.insertRows(ctx, writingOthers, `INSERT INTO idempotency_keys (app_id, key, operation, request_hash, created)`, len(keys),
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
	return q.run(ctx, claimingKeys, releaseKeysStmts(appID, keys))
}

// releaseKeysStmts are the statements of ReleaseIdempotencyKeys.
func releaseKeysStmts(appID string, keys []string) []sqldb.Stmt {
	var stmts []sqldb.Stmt
	for start := 0; start < len(keys); start += itemsPerInsert {
		marks, args := appAndIDs(appID, keys[start:min(start+itemsPerInsert, len(keys))])
		stmts = append(stmts, sqldb.Stmt{Query: `DELETE FROM idempotency_keys WHERE app_id = ? AND key IN (` + marks + `)`, Args: args})
	}
	return stmts
}

// PurgeIdempotencyKeys forgets keys made before the given time and returns how many.
func (q *Queries) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (_ int64, err error) {
	defer wrap(&err, "purge idempotency keys")
	res, err := q.execTouching(ctx, writingOthers, `DELETE FROM idempotency_keys WHERE created < ?`, sqldb.Micros(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// keysAhead are the idempotency keys the batch claimed for its jobs before they ran (the batch
// view, startBatch), each job's as it said it would claim it (service.Intent), and not yet taken
// by their job: given back before the commit.
type keysAhead struct {
	claimed map[keyRef]service.IdempotencyRecord
}

type keyRef struct{ appID, key string }

// takeKeyClaimedAhead answers a job's claim of the key it said it would claim from the batch's
// claims. It reports whether the key was claimed for this job: then the job holds it, claimed as
// it said (unfinished, or finished with the resource it named). A job that fails puts the key
// back in the batch's claims (jobState.undo), which gives back at the batch's end the keys no job
// kept (releaseKeysAhead).
func (q *Queries) takeKeyClaimedAhead(ctx context.Context, k *service.IdempotencyRecord) (bool, error) {
	if q.job == nil {
		return false, nil
	}
	ka, ref := &q.job.st.keys, keyRef{k.AppID, k.Key}
	claim, ok := ka.claimed[ref]
	if said := q.intent.KeyToClaim; !ok || said == nil || said.AppID != k.AppID || said.Key != k.Key {
		return false, nil // not this job's: its claim finds the key under way (ClaimIdempotencyKey)
	}
	delete(ka.claimed, ref)
	q.job.taken = append(q.job.taken, claim)
	if claim.Operation != k.Operation || claim.RequestHash != k.RequestHash || claim.ResourceID != k.ResourceID {
		// Not the claim this job said it would make: take ours back, for its own claim to find
		// the key as it stands. (If the job fails, ours is given back again at the end: a
		// statement that deletes nothing.)
		return false, q.ReleaseIdempotencyKey(ctx, k.AppID, k.Key)
	}
	return true, nil
}

// claimedAheadFor reports whether the batch claimed the app's key ahead for a job that has not
// taken it yet.
func (q *Queries) claimedAheadFor(appID, key string) bool {
	if q.job == nil {
		return false
	}
	_, ok := q.job.st.keys.claimed[keyRef{appID, key}]
	return ok
}

// claimKeysStmts are the statements that claim keys, the free ones, for the batch view (ka):
// in key order, so that two PostgreSQL batches claiming the same keys wait for each other rather
// than deadlock. A key already taken is left for its job's own claim to find.
func claimKeysStmts(d sqldb.Dialect, keys []service.IdempotencyRecord, ka *keysAhead) ([]sqldb.Stmt, error) {
	slices.SortFunc(keys, func(a, b service.IdempotencyRecord) int {
		return cmp.Or(cmp.Compare(a.AppID, b.AppID), cmp.Compare(a.Key, b.Key))
	})
	byRef := map[keyRef]service.IdempotencyRecord{}
	for _, k := range keys {
		byRef[keyRef{k.AppID, k.Key}] = k
	}
	var stmts []sqldb.Stmt
	err := sqldb.InsertRows(d, len(keys), itemsPerInsert, `INSERT INTO idempotency_keys (app_id, key, operation, request_hash, resource_id, created)`,
		func(i int) []any {
			k := keys[i]
			return []any{k.AppID, k.Key, k.Operation, k.RequestHash, nullString(k.ResourceID), sqldb.Micros(k.Created)}
		}, `ON CONFLICT (app_id, key) DO NOTHING RETURNING app_id, key`, func(query string, args []any) error {
			stmts = append(stmts, sqldb.Stmt{Query: query, Args: args, Row: func(scan func(...any) error) error {
				var ref keyRef
				if err := scan(&ref.appID, &ref.key); err != nil {
					return err
				}
				ka.claimed[ref] = byRef[ref]
				return nil
			}})
			return nil
		})
	return stmts, err
}

// releaseKeysAhead are the statements that give back, before the batch commits, the keys it
// claimed ahead that no job kept, and those its failed jobs claimed themselves: their jobs
// failed, or never took them.
func releaseKeysAhead(ka keysAhead) []sqldb.Stmt {
	byApp := map[string][]string{}
	for ref := range ka.claimed {
		byApp[ref.appID] = append(byApp[ref.appID], ref.key)
	}
	var stmts []sqldb.Stmt
	for _, appID := range slices.Sorted(maps.Keys(byApp)) {
		keys := byApp[appID]
		slices.Sort(keys)
		stmts = append(stmts, releaseKeysStmts(appID, keys)...)
	}
	return stmts
}
