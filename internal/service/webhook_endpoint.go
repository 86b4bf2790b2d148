package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"slices"
	"time"

	"github.com/disburse/disburse/payouts"
)

// WebhookSender posts signed events to endpoints; package webhook is the real one. It refuses
// URLs it would never reach (not http(s), an IPv4 address written other than a.b.c.d, or
// private, loopback and link-local hosts outside sandbox mode), at registration through CheckURL
// and again when it connects.
type WebhookSender interface {
	CheckURL(rawURL string) error
	Send(ctx context.Context, m WebhookMessage) WebhookResult
}

// WebhookMessage is one delivery attempt: the event's id, the signing time, the body and every
// secret that signs it (during a rotation, the new and the old).
type WebhookMessage struct {
	URL       string
	ID        string
	Timestamp time.Time
	Body      []byte
	Secrets   []string
}

// WebhookResult is what became of an attempt; Err is set when no answer came.
type WebhookResult struct {
	StatusCode int
	Latency    time.Duration
	Response   string
	Err        error
}

// OK reports whether the receiver took the event: any 2xx.
func (r WebhookResult) OK() bool { return r.Err == nil && r.StatusCode >= 200 && r.StatusCode < 300 }

// WebhookEndpointRecord is an endpoint with its sealed secrets.
type WebhookEndpointRecord struct {
	payouts.WebhookEndpoint
	AppID        string
	Seq          int64
	SealedSecret []byte
	SealedOld    []byte    // the secret before the last rotation, signing until OldUntil
	OldUntil     time.Time // zero when there is no old secret
	FailingSince time.Time // first failure since the last success; zero when healthy
}

// Wants reports whether the endpoint takes events of type t.
func (e *WebhookEndpointRecord) Wants(t payouts.EventType) bool {
	return len(e.EventTypes) == 0 || slices.Contains(e.EventTypes, t)
}

// defaultOverlap is how long an old secret keeps signing after a rotation unless the request
// says otherwise; maxOverlap bounds what it may say.
const (
	defaultOverlap = 24 * time.Hour
	maxOverlap     = 7 * 24 * time.Hour
)

// newWebhookSecret is a Standard Webhooks secret: whsec_ and 32 random bytes in base64.
func newWebhookSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

func (s *Service) checkEndpoint(p payouts.Problems, rawURL string, types []payouts.EventType, description string) {
	switch u, err := url.Parse(rawURL); {
	case rawURL == "":
		p.Add("url", "is required")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(rawURL) > 2048:
		p.Add("url", "must be an http or https URL")
	case s.cfg.Webhooks != nil:
		if err := s.cfg.Webhooks.CheckURL(rawURL); err != nil {
			p.Add("url", err.Error())
		}
	}
	if !eventTypesOK(types) {
		p.Add("event_types", "must be known event types, each once")
	}
	if len(description) > 500 {
		p.Add("description", "must be at most 500 characters")
	}
}

// CreateWebhookEndpoint registers a URL for the app's events; the answer carries the signing
// secret, which is never shown again.
func (s *Service) CreateWebhookEndpoint(ctx context.Context, appID string, req payouts.CreateWebhookEndpointRequest) (*payouts.WebhookEndpoint, error) {
	p := payouts.Problems{}
	s.checkEndpoint(p, req.URL, req.EventTypes, req.Description)
	if err := p.Err(); err != nil {
		return nil, err
	}
	secret := newWebhookSecret()
	e := &WebhookEndpointRecord{AppID: appID, WebhookEndpoint: payouts.WebhookEndpoint{ID: newID(),
		URL: req.URL, EventTypes: req.EventTypes, Enabled: req.Enabled == nil || *req.Enabled,
		Description: req.Description, Created: payouts.NewTime(s.now())}}
	e.SealedSecret = s.seal([]byte(secret), aadOf(SealedWebhookSecret, e.ID))
	if err := s.inTx(ctx, func(q *Tx) error { return q.CreateWebhookEndpoint(ctx, e) }); err != nil {
		return nil, err
	}
	out := e.WebhookEndpoint
	out.Secret = secret
	return &out, nil
}

func (s *Service) getEndpoint(ctx context.Context, q Reads, appID, id string) (*WebhookEndpointRecord, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("webhook endpoint")
	}
	e, err := q.GetWebhookEndpoint(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "webhook endpoint")
	}
	return e, nil
}

// GetWebhookEndpoint returns one endpoint, without its secret.
func (s *Service) GetWebhookEndpoint(ctx context.Context, appID, id string) (*payouts.WebhookEndpoint, error) {
	e, err := s.getEndpoint(ctx, s.store, appID, id)
	if err != nil {
		return nil, err
	}
	return &e.WebhookEndpoint, nil
}

// ListWebhookEndpoints returns the app's endpoints, newest first; an app has a handful.
func (s *Service) ListWebhookEndpoints(ctx context.Context, appID string) (*payouts.List[payouts.WebhookEndpoint], error) {
	recs, err := s.store.ListWebhookEndpoints(ctx, appID)
	if err != nil {
		return nil, err
	}
	out := &payouts.List[payouts.WebhookEndpoint]{Data: make([]payouts.WebhookEndpoint, len(recs))}
	for i := range recs {
		out.Data[i] = recs[i].WebhookEndpoint
	}
	return out, nil
}

// UpdateWebhookEndpoint changes the fields the request names. Enabling an endpoint clears the
// reason it was disabled and its failure streak.
func (s *Service) UpdateWebhookEndpoint(ctx context.Context, appID, id string, req payouts.UpdateWebhookEndpointRequest) (*payouts.WebhookEndpoint, error) {
	var out *payouts.WebhookEndpoint
	err := s.inTx(ctx, func(q *Tx) error {
		e, err := s.getEndpoint(ctx, q, appID, id)
		if err != nil {
			return err
		}
		if req.URL != nil {
			e.URL = *req.URL
		}
		if req.EventTypes != nil {
			e.EventTypes = *req.EventTypes
		}
		if req.Description != nil {
			e.Description = *req.Description
		}
		if req.Enabled != nil {
			if *req.Enabled && !e.Enabled {
				e.DisabledReason, e.FailingSince = "", time.Time{}
			}
			e.Enabled = *req.Enabled
		}
		p := payouts.Problems{}
		s.checkEndpoint(p, e.URL, e.EventTypes, e.Description)
		if err := p.Err(); err != nil {
			return err
		}
		out = &e.WebhookEndpoint
		return q.UpdateWebhookEndpoint(ctx, e)
	})
	return out, err
}

// DeleteWebhookEndpoint removes an endpoint and its deliveries.
func (s *Service) DeleteWebhookEndpoint(ctx context.Context, appID, id string) error {
	return s.inTx(ctx, func(q *Tx) error {
		if _, err := s.getEndpoint(ctx, q, appID, id); err != nil {
			return err
		}
		return q.DeleteWebhookEndpoint(ctx, appID, id)
	})
}

// RotateWebhookSecret gives the endpoint a new secret, shown once in the answer. The old one
// keeps signing beside it for the overlap, so a receiver can switch without missing events.
func (s *Service) RotateWebhookSecret(ctx context.Context, appID, id string, req payouts.RotateWebhookSecretRequest) (*payouts.WebhookEndpoint, error) {
	overlap := defaultOverlap
	if req.OverlapSeconds != nil {
		// Bounded as seconds, before the conversion: seconds past int64 nanoseconds would wrap.
		seconds := *req.OverlapSeconds
		if seconds < 0 || seconds > int64(maxOverlap/time.Second) {
			return nil, payouts.FieldError("overlap_seconds", "must be between 0 and 604800")
		}
		overlap = time.Duration(seconds) * time.Second
	}
	secret := newWebhookSecret()
	var out payouts.WebhookEndpoint
	err := s.inTx(ctx, func(q *Tx) error {
		e, err := s.getEndpoint(ctx, q, appID, id)
		if err != nil {
			return err
		}
		e.SealedOld, e.OldUntil = e.SealedSecret, s.now().Add(overlap)
		if overlap == 0 {
			e.SealedOld, e.OldUntil = nil, time.Time{}
		}
		e.SealedSecret = s.seal([]byte(secret), aadOf(SealedWebhookSecret, e.ID))
		out = e.WebhookEndpoint
		return q.UpdateWebhookEndpoint(ctx, e)
	})
	if err != nil {
		return nil, err
	}
	out.Secret = secret
	return &out, nil
}

// secrets opens the secrets that sign for the endpoint now: the current one, and the old one
// during its overlap.
func (s *Service) secrets(e *WebhookEndpointRecord) ([]string, error) {
	cur, err := s.open(e.SealedSecret, aadOf(SealedWebhookSecret, e.ID))
	if err != nil {
		return nil, err
	}
	out := []string{string(cur)}
	if len(e.SealedOld) > 0 && s.now().Before(e.OldUntil) {
		old, err := s.open(e.SealedOld, aadOf(SealedWebhookSecret, e.ID))
		if err != nil {
			return nil, err
		}
		out = append(out, string(old))
	}
	return out, nil
}

// ResendWebhooks queues again, for one endpoint, either one event whatever became of it, or
// every event whose delivery failed since a time; it returns how many. One event whose delivery
// is still pending is refused: a second copy would only arrive twice, the first still being tried.
func (s *Service) ResendWebhooks(ctx context.Context, appID, endpointID string, req payouts.ResendWebhooksRequest) (int, error) {
	if (req.EventID == "") == (req.Since == nil) {
		return 0, payouts.FieldError("event_id", "give event_id or since, one of them")
	}
	n := 0
	err := s.inTx(ctx, func(q *Tx) error {
		if _, err := s.getEndpoint(ctx, q, appID, endpointID); err != nil {
			return err
		}
		if req.Since != nil {
			var err error
			n, err = q.RequeueFailedWebhookDeliveries(ctx, endpointID, req.Since.Time, s.now())
			return err
		}
		if !payouts.ValidID(req.EventID) {
			return notFound("event")
		}
		e, err := q.GetEvent(ctx, appID, req.EventID)
		if err != nil {
			return orNotFound(err, "event")
		}
		switch pending, err := q.WebhookDeliveryPending(ctx, endpointID, e.ID); {
		case err != nil:
			return err
		case pending:
			return payouts.Errorf(payouts.EResourceBusy, "This event's delivery to the endpoint is still pending; resend it once it has succeeded or failed.")
		}
		n = 1
		return q.Apply(ctx, &Plan{Deliveries: []WebhookDeliveryRecord{queued(e, endpointID, s.now())}})
	})
	return n, err
}

// SendTestWebhook writes a webhook.test event for this endpoint alone and queues it.
func (s *Service) SendTestWebhook(ctx context.Context, appID, endpointID string) (*payouts.Event, error) {
	var out *payouts.Event
	err := s.inTx(ctx, func(q *Tx) error {
		ep, err := s.getEndpoint(ctx, q, appID, endpointID)
		if err != nil {
			return err
		}
		e, err := s.newEvent(appID, payouts.EventWebhookTest, ep.ID,
			map[string]string{"endpoint_id": ep.ID, "message": "This is a test event."})
		if err != nil {
			return err
		}
		out = &e.Event
		return q.Apply(ctx, &Plan{Events: []*EventRecord{e}, Deliveries: []WebhookDeliveryRecord{queued(e, ep.ID, e.Created.Time)}})
	})
	return out, err
}
