package service

import (
	"context"
	"errors"
	"time"

	"github.com/disburse/disburse/payouts"
)

// usable says whether the key authenticates at now: not revoked and not expired.
func (k *APIKeyRecord) usable(now time.Time) bool {
	return k.Revoked.IsZero() && (k.Expires.IsZero() || now.Before(k.Expires))
}

// status is what the API says of the key at now.
func (k *APIKeyRecord) status(now time.Time) payouts.APIKeyStatus {
	switch {
	case !k.Revoked.IsZero():
		return payouts.APIKeyRevoked
	case k.Expires.IsZero():
		return payouts.APIKeyActive
	case now.Before(k.Expires):
		return payouts.APIKeyExpiring
	}
	return payouts.APIKeyExpired
}

// appKey reads the app of clientID and its key of this hash, if it may authenticate at now, and
// writes the key's last use when the one written is a minute old or more. ErrNoRecord when the
// app, the key or the pair is not there.
func (s *Service) appKey(ctx context.Context, clientID string, hash []byte, now time.Time) (*AppRecord, *APIKeyRecord, error) {
	rec, err := s.store.AppByClientID(ctx, clientID)
	if err != nil {
		return nil, nil, err
	}
	key, err := s.store.APIKeyByHash(ctx, hash)
	if err != nil {
		return nil, nil, err
	}
	if key.AppID != rec.ID || !key.usable(now) {
		return nil, nil, ErrNoRecord
	}
	if now.Sub(key.LastUsed) >= credentialTTL {
		key.LastUsed = now
		if err := s.inTx(ctx, func(q *Tx) error { return q.TouchAPIKey(ctx, key.ID, now) }); err != nil {
			return nil, nil, err
		}
	}
	return rec, key, nil
}

// APIKeys lists the app's keys; current is the key of the request, marked as such.
func (s *Service) APIKeys(ctx context.Context, appID, id, current string) (*payouts.APIKeyList, error) {
	if id != appID {
		return nil, notFound("app")
	}
	recs, err := s.store.ListAPIKeys(ctx, appID)
	if err != nil {
		return nil, err
	}
	out := &payouts.APIKeyList{Data: make([]payouts.APIKey, len(recs))}
	for i := range recs {
		out.Data[i] = s.apiKeyOf(&recs[i], current)
	}
	return out, nil
}

// CreateAPIKey makes a key of the app, whose secret the answer shows this once. A key it replaces
// keeps working for payouts.APIKeyOverlap more, unless it is the request's own (current): a
// caller must not set the end of the key it runs on.
func (s *Service) CreateAPIKey(ctx context.Context, appID, id, current string, req payouts.CreateAPIKeyRequest) (*payouts.APIKey, error) {
	if id != appID {
		return nil, notFound("app")
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	now := s.now()
	secret, rec := newAPIKey(appID, req.Name, req.CreatedBy, now)
	err := s.inTx(ctx, func(q *Tx) error {
		if req.Replaces != "" {
			old, err := q.GetAPIKey(ctx, appID, req.Replaces)
			if errors.Is(err, ErrNoRecord) || err == nil && !old.usable(now) {
				return payouts.FieldError("replaces", "is not a working key of this app")
			}
			if err != nil {
				return err
			}
			if old.ID == current {
				return payouts.FieldError("replaces", "is the key this request is made with, which would stop its caller")
			}
			if end := now.Add(payouts.APIKeyOverlap); old.Expires.IsZero() || end.Before(old.Expires) {
				old.Expires = end
			}
			if err := q.UpdateAPIKey(ctx, old); err != nil {
				return err
			}
		}
		return q.CreateAPIKey(ctx, rec)
	})
	if err != nil {
		return nil, err
	}
	s.credentials.forget()
	k := s.apiKeyOf(rec, current)
	k.Key = secret
	return &k, nil
}

// RevokeAPIKey stops a key of the app at once, in this process; other processes stop admitting
// it within credentialTTL. The request's own key (current) is refused: revoking it would lock its
// caller out, the embedded dashboard first. Revoking a revoked key changes nothing.
func (s *Service) RevokeAPIKey(ctx context.Context, appID, id, keyID, current string) (*payouts.APIKey, error) {
	if id != appID {
		return nil, notFound("app")
	}
	if keyID == current {
		return nil, payouts.Errorf(payouts.EForbidden, "This is the API key the request is made with; revoke it with another key.")
	}
	now := s.now()
	var rec *APIKeyRecord
	err := s.inTx(ctx, func(q *Tx) error {
		var err error
		if rec, err = q.GetAPIKey(ctx, appID, keyID); err != nil {
			return orNotFound(err, "API key")
		}
		if !rec.Revoked.IsZero() {
			return nil
		}
		rec.Revoked = now
		return q.UpdateAPIKey(ctx, rec)
	})
	if err != nil {
		return nil, err
	}
	s.credentials.forget()
	k := s.apiKeyOf(rec, current)
	return &k, nil
}

func (s *Service) apiKeyOf(r *APIKeyRecord, current string) payouts.APIKey {
	return payouts.APIKey{ID: r.ID, Name: r.Name, Last4: r.Last4, Status: r.status(s.now()), CreatedBy: r.CreatedBy,
		Created: payouts.NewTime(r.Created), ExpiresAt: timeOrNil(r.Expires), RevokedAt: timeOrNil(r.Revoked),
		LastUsedAt: timeOrNil(r.LastUsed), Current: r.ID == current}
}

// timeOrNil is nil for the zero time, so the API writes null.
func timeOrNil(t time.Time) *payouts.Time {
	if t.IsZero() {
		return nil
	}
	pt := payouts.NewTime(t)
	return &pt
}
