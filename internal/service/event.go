package service

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/disburse/disburse/payouts"
)

// EventRecord is an event as stored; Seq orders the events of an app.
type EventRecord struct {
	payouts.Event
	Seq int64
}

// emit writes an event about object in the open transaction q, with its deliveries (outbox), applied at once.
func (s *Service) emit(ctx context.Context, q *Tx, appID string, typ payouts.EventType, objectID string, object any) (*EventRecord, error) {
	endpoints, err := q.ListWebhookEndpoints(ctx, appID)
	if err != nil {
		return nil, err
	}
	e, err := s.newEvent(appID, typ, objectID, object)
	if err != nil {
		return nil, err
	}
	events, deliveries := outbox([]*EventRecord{e}, map[string][]WebhookEndpointRecord{appID: endpoints})
	return e, q.Apply(ctx, &Plan{Events: events, Deliveries: deliveries})
}

// outbox is events, in order, and one pending delivery of each to every enabled endpoint of its
// app (endpoints, by app id) that wants its type: the transactional outbox, written with the
// change in one plan, so that they commit together or not at all.
func outbox(events []*EventRecord, endpoints map[string][]WebhookEndpointRecord) (_ []*EventRecord, deliveries []WebhookDeliveryRecord) {
	for _, e := range events {
		for _, ep := range endpoints[e.AppID] {
			if ep.Enabled && ep.Wants(e.Type) {
				deliveries = append(deliveries, queued(e, ep.ID, e.Created.Time))
			}
		}
	}
	return events, deliveries
}

// queued is a pending delivery of e to an endpoint, due at at.
func queued(e *EventRecord, endpointID string, at time.Time) WebhookDeliveryRecord {
	return WebhookDeliveryRecord{AppID: e.AppID, EventID: e.ID, EndpointID: endpointID, ObjectID: e.ObjectID,
		Status: payouts.DeliveryPending, NextAttempt: at, Created: at}
}

// newEvent makes an event about object, not yet written.
func (s *Service) newEvent(appID string, typ payouts.EventType, objectID string, object any) (*EventRecord, error) {
	data, ok := object.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(object); err != nil {
			return nil, err
		}
	}
	return &EventRecord{Event: payouts.Event{ID: newID(), Type: typ, Created: payouts.NewTime(s.now()),
		AppID: appID, ObjectID: objectID, Data: data}}, nil
}

// GetEvent returns one event of the app.
func (s *Service) GetEvent(ctx context.Context, appID, id string) (*payouts.Event, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("event")
	}
	e, err := s.store.GetEvent(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "event")
	}
	return &e.Event, nil
}

// ListEvents returns a page of the app's events, newest first, of f's type, object and creation range.
func (s *Service) ListEvents(ctx context.Context, appID string, page payouts.Page, f payouts.EventFilter) (*payouts.List[payouts.Event], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	p := payouts.Problems{}
	if f.Type != "" && !f.Type.Valid() {
		p.Add("type", "is not an event type")
	}
	if f.ObjectID != "" && !payouts.ValidID(f.ObjectID) {
		p.Add("object_id", "is not a valid id")
	}
	f.Range().Check(p)
	if err := p.Err(); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListEvents(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.Event]{HasMore: more, Data: make([]payouts.Event, len(recs))}
	for i := range recs {
		out.Data[i] = recs[i].Event
	}
	return out, nil
}

// eventTypesOK reports whether every type is one the service writes, without repeats.
func eventTypesOK(types []payouts.EventType) bool {
	for i, t := range types {
		if !t.Valid() || slices.Contains(types[:i], t) {
			return false
		}
	}
	return true
}
