package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/disburse/disburse/payouts"
)

// IdempotencyWindow is how long an idempotency key is remembered.
const IdempotencyWindow = 24 * time.Hour

// idempotent runs create inside one write transaction guarded by an idempotency key, so that
// concurrent duplicates produce exactly one effect: the second waits on the first's write lock
// (SQLite) or unique-key row lock (PostgreSQL), then finds the finished key. It returns the id of
// the resource made now or earlier, and whether it was made earlier.
//
// With sameKeyAnyBody the key alone identifies the request (payout links); otherwise the same key
// with another body is refused.
func (s *Service) idempotent(ctx context.Context, appID, op, key string, req any, sameKeyAnyBody bool,
	create func(q *Tx) (string, error)) (id string, replayed bool, err error) {
	return s.idempotentAs(ctx, Intent{}, appID, op, key, "", req, sameKeyAnyBody, create)
}

// checkIdempotencyKey refuses a key that is not a UUID; none is fine.
func checkIdempotencyKey(key string) error {
	if key != "" && !payouts.ValidID(key) {
		return payouts.FieldError("idempotency_key", "must be a UUID")
	}
	return nil
}

// idempotentAs is idempotent for a create that makes the resource resourceID, chosen beforehand
// (any id when it is ""): the key is claimed already finished with it, one statement instead of a
// claim and a finish. No other transaction sees the claim before the create commits with it.
// intent says which users the create reads; the key to claim is added to it.
func (s *Service) idempotentAs(ctx context.Context, intent Intent, appID, op, key, resourceID string, req any, sameKeyAnyBody bool,
	create func(q *Tx) (string, error)) (id string, replayed bool, err error) {
	var hash string
	if key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return "", false, err
		}
		if hash, err = requestHash(op, req); err != nil {
			return "", false, err
		}
		intent.KeyToClaim = &IdempotencyRecord{AppID: appID, Key: key, Operation: op, RequestHash: hash,
			ResourceID: resourceID, Created: s.now()}
	}
	err = s.inTxWith(ctx, intent, func(q *Tx) error {
		id, replayed, err = s.idempotentIn(ctx, q, q, appID, op, key, hash, resourceID, sameKeyAnyBody, create)
		return err
	})
	return id, replayed, err
}

// idempotentIn is idempotent inside the open transaction q, claiming the key through keys, for a
// request already fingerprinted (hash); a batch runs many of them in one transaction.
func (s *Service) idempotentIn(ctx context.Context, q *Tx, keys KeyWrites, appID, op, key, hash, resourceID string, sameKeyAnyBody bool,
	create func(q *Tx) (string, error)) (id string, replayed bool, err error) {
	if key == "" {
		id, err = create(q)
		return id, false, err
	}
	now := s.now()
	rec := &IdempotencyRecord{AppID: appID, Key: key, Operation: op, RequestHash: hash, ResourceID: resourceID, Created: now}
	prior, err := keys.ClaimIdempotencyKey(ctx, rec)
	if err != nil {
		return "", false, err
	}
	if prior != nil && now.Sub(prior.Created) >= IdempotencyWindow {
		// Expired: forget it and take the key afresh.
		if err := keys.ReleaseIdempotencyKey(ctx, appID, key); err != nil {
			return "", false, err
		}
		if prior, err = keys.ClaimIdempotencyKey(ctx, rec); err != nil {
			return "", false, err
		}
	}
	if prior != nil {
		switch {
		case prior.Operation != op || (!sameKeyAnyBody && prior.RequestHash != hash):
			return "", false, payouts.Errorf(payouts.EIdempotencyReused,
				"This idempotency key was already used with a different request.")
		case prior.ResourceID == "":
			return "", false, payouts.Errorf(payouts.EResourceBusy,
				"A request with this idempotency key is still being processed.")
		}
		return prior.ResourceID, true, nil
	}
	if id, err = create(q); err != nil {
		return "", false, err
	}
	if resourceID != "" && id == resourceID {
		return id, false, nil // claimed already finished with it
	}
	return id, false, keys.FinishIdempotencyKey(ctx, appID, key, id)
}

// requestHash fingerprints a request without its idempotency key.
func requestHash(op string, req any) (string, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return "", errors.New("service: request is not an object")
	}
	delete(m, "idempotency_key")
	b, _ = json.Marshal(m) // map keys marshal sorted: a stable form
	var compact bytes.Buffer
	json.Compact(&compact, b)
	sum := sha256.Sum256(append([]byte(op+"\x00"), compact.Bytes()...))
	return hex.EncodeToString(sum[:]), nil
}

// PurgeIdempotencyKeys forgets the keys older than the idempotency window.
func (s *Service) PurgeIdempotencyKeys(ctx context.Context) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(q *Tx) error {
		var err error
		n, err = q.PurgeIdempotencyKeys(ctx, s.now().Add(-IdempotencyWindow))
		return err
	})
	return n, err
}
