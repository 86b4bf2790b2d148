package service

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/disburse/disburse/payouts"
)

// Delivery timing. A worker holds the deliveries it sends for Config.WebhookLease and gives up
// on the sends after half of it, so another worker takes them over only when the first one
// died. A failed
// delivery is retried with exponential backoff and jitter until webhookWindow after the event,
// then marked failed; when that happens to an endpoint that has not answered 2xx since before the
// event, every attempt for three days failed, and the endpoint is disabled.
const (
	webhookWindow     = 72 * time.Hour
	webhookFirstRetry = 5 * time.Second
	webhookMaxRetry   = 12 * time.Hour
	// webhookParallel is how many requests a worker has in flight at once.
	webhookParallel = 16
)

// WebhookDeliveryRecord is one event's delivery to one endpoint.
type WebhookDeliveryRecord struct {
	ID          int64
	AppID       string
	EventID     string
	EndpointID  string
	ObjectID    string
	Status      payouts.DeliveryStatus
	Attempts    int
	NextAttempt time.Time
	Created     time.Time
}

// WebhookAttemptRecord is one try of a delivery, kept for the dashboard.
type WebhookAttemptRecord struct {
	payouts.WebhookAttempt
	AppID      string
	DeliveryID int64
}

// webhookRetryDelay is the wait before the next try after attempts failed ones: 5s doubling up
// to 12h, each within ±20%, so receivers that failed together are not all retried together.
func webhookRetryDelay(attempts int) time.Duration {
	d := webhookMaxRetry
	if attempts < 20 {
		d = min(webhookFirstRetry<<(attempts-1), webhookMaxRetry)
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

type webhookJob struct {
	delivery *WebhookDeliveryRecord
	msg      WebhookMessage
	eventTyp payouts.EventType
	result   WebhookResult
}

// DeliverWebhooks sends up to max due deliveries and returns how many it tried. They are leased
// in one transaction, sent outside any transaction (several at once), and their outcomes
// recorded in another. The deliveries of one object to one endpoint go one at a time, oldest
// first, so a receiver hears of an object's changes in the order they happened.
func (s *Service) DeliverWebhooks(ctx context.Context, max int) (int, error) {
	if s.cfg.Webhooks == nil {
		return 0, nil
	}
	var jobs []*webhookJob
	err := s.inTx(ctx, func(q *Tx) error {
		jobs = nil
		now := s.now()
		due, err := q.ClaimDueWebhookDeliveries(ctx, now, now.Add(s.cfg.WebhookLease), max)
		if err != nil {
			return err
		}
		endpoints := map[string]*WebhookEndpointRecord{}
		for i := range due {
			d := &due[i]
			ep, ok := endpoints[d.EndpointID]
			if !ok {
				if ep, err = q.GetWebhookEndpoint(ctx, d.AppID, d.EndpointID); err != nil {
					return err
				}
				endpoints[d.EndpointID] = ep
			}
			e, err := q.GetEvent(ctx, d.AppID, d.EventID)
			if err != nil {
				return err
			}
			body, err := json.Marshal(e.Event)
			if err != nil {
				return err
			}
			secrets, err := s.secrets(ep)
			if err != nil {
				return err
			}
			jobs = append(jobs, &webhookJob{delivery: d, eventTyp: e.Type,
				msg: WebhookMessage{URL: ep.URL, ID: e.ID, Timestamp: now, Body: body, Secrets: secrets}})
		}
		return nil
	})
	if err != nil || len(jobs) == 0 {
		return 0, err
	}
	sendCtx, cancel := context.WithTimeout(ctx, s.cfg.WebhookLease/2)
	s.sendAll(sendCtx, jobs)
	cancel()
	return len(jobs), s.inTx(ctx, func(q *Tx) error { return s.recordAttempts(ctx, q, jobs) })
}

// sendAll sends the jobs, at most webhookParallel at once.
func (s *Service) sendAll(ctx context.Context, jobs []*webhookJob) {
	slots := make(chan struct{}, webhookParallel)
	var wg sync.WaitGroup
	for _, j := range jobs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			j.result = s.cfg.Webhooks.Send(ctx, j.msg)
		})
	}
	wg.Wait()
}

// recordAttempts writes what became of each job, schedules retries, and keeps each endpoint's
// failure streak, disabling an endpoint that has failed for too long.
func (s *Service) recordAttempts(ctx context.Context, q *Tx, jobs []*webhookJob) error {
	now := s.now()
	succeeded, failed := map[string]bool{}, map[string]string{}
	gaveUp := map[string]time.Time{} // endpoint -> the oldest event given up on in this batch
	for _, j := range jobs {
		d, r := j.delivery, j.result
		d.Attempts++
		outcome := payouts.DeliverySucceeded
		if !r.OK() {
			outcome, d.NextAttempt = payouts.DeliveryPending, now.Add(webhookRetryDelay(d.Attempts))
			if d.NextAttempt.After(d.Created.Add(webhookWindow)) {
				outcome = payouts.DeliveryFailed
				if t, ok := gaveUp[d.EndpointID]; !ok || d.Created.Before(t) {
					gaveUp[d.EndpointID] = d.Created
				}
			}
			failed[d.EndpointID] = d.AppID
		} else {
			succeeded[d.EndpointID] = true
		}
		d.Status = outcome
		response := r.Response
		if r.Err != nil {
			response = r.Err.Error()
		}
		a := &WebhookAttemptRecord{AppID: d.AppID, DeliveryID: d.ID, WebhookAttempt: payouts.WebhookAttempt{
			EventID: d.EventID, EventType: j.eventTyp, EndpointID: d.EndpointID, StatusCode: r.StatusCode,
			LatencyMS: r.Latency.Milliseconds(), Response: response, Delivery: outcome, Created: payouts.NewTime(now)}}
		if err := q.FinishWebhookDelivery(ctx, d, a); err != nil {
			return err
		}
	}
	for id, appID := range failed {
		if succeeded[id] {
			continue
		}
		if err := s.endpointFailed(ctx, q, appID, id, now, gaveUp[id]); err != nil {
			return err
		}
	}
	for id := range succeeded {
		if err := q.ClearWebhookFailures(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// endpointFailed starts or continues the endpoint's failure streak. When a delivery was given up
// (gaveUp is its event's time) and the streak began before that event, nothing got through for
// the whole retry window: the endpoint is disabled, with a webhook_endpoint.disabled event.
func (s *Service) endpointFailed(ctx context.Context, q *Tx, appID, id string, now, gaveUp time.Time) error {
	ep, err := q.GetWebhookEndpoint(ctx, appID, id)
	if err != nil {
		return err
	}
	switch {
	case ep.FailingSince.IsZero():
		ep.FailingSince = now
	case ep.Enabled && !gaveUp.IsZero() && !ep.FailingSince.After(gaveUp):
		ep.Enabled = false
		ep.DisabledReason = "every delivery failed since " + ep.FailingSince.Format(time.RFC3339)
		s.log.Warn("webhook endpoint disabled", "endpoint", id, "failing_since", ep.FailingSince)
		if _, err := s.emit(ctx, q, appID, payouts.EventWebhookEndpointDisabled, id, ep.WebhookEndpoint); err != nil {
			return err
		}
	default:
		return nil
	}
	return q.UpdateWebhookEndpoint(ctx, ep)
}

// WebhookBacklog counts the deliveries not yet made, of every app: what the load measurement
// watches.
func (s *Service) WebhookBacklog(ctx context.Context) (int, error) {
	return s.store.CountPendingWebhookDeliveries(ctx)
}

// ListWebhookAttempts returns a page of the attempts to deliver to an endpoint, newest first,
// optionally of one event.
func (s *Service) ListWebhookAttempts(ctx context.Context, appID, endpointID, eventID string, page payouts.Page) (*payouts.List[payouts.WebhookAttempt], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.getEndpoint(ctx, s.store, appID, endpointID); err != nil {
		return nil, err
	}
	if eventID != "" && !payouts.ValidID(eventID) {
		return nil, payouts.FieldError("event_id", "is not a valid id")
	}
	recs, more, err := s.store.ListWebhookAttempts(ctx, appID, endpointID, eventID, page)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.WebhookAttempt]{HasMore: more, Data: make([]payouts.WebhookAttempt, len(recs))}
	for i := range recs {
		out.Data[i] = recs[i].WebhookAttempt
	}
	return out, nil
}

// RunWebhookWorker delivers webhooks until ctx ends: at once again while there is a full batch,
// else every interval.
func (s *Service) RunWebhookWorker(ctx context.Context, interval time.Duration) {
	const batch = 100
	for {
		n, err := s.DeliverWebhooks(ctx, batch)
		if err != nil && ctx.Err() == nil {
			s.log.Error("delivering webhooks", "err", err)
		}
		if n == batch && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
