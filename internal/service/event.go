package service

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
)

// EventRecord is an event as stored; Seq orders the events of an app.
type EventRecord struct {
	payouts.Event
	Seq int64
}

// emit writes an event about object in the open transaction q, and one pending delivery for
// each enabled endpoint of the app that wants its type: the transactional outbox. The change
// and its event commit together or not at all.
func (s *Service) emit(ctx context.Context, q Queries, appID string, typ payouts.EventType, objectID string, object any) (*EventRecord, error) {
	endpoints, err := q.ListWebhookEndpoints(ctx, appID)
	if err != nil {
		return nil, err
	}
	return s.emitTo(ctx, q, endpoints, appID, typ, objectID, object)
}

// emitTo is emit with the app's endpoints already read.
func (s *Service) emitTo(ctx context.Context, q Queries, endpoints []WebhookEndpointRecord, appID string, typ payouts.EventType, objectID string, object any) (*EventRecord, error) {
	e, err := s.insertEvent(ctx, q, appID, typ, objectID, object)
	if err != nil {
		return nil, err
	}
	var targets []string
	for _, ep := range endpoints {
		if ep.Enabled && ep.Wants(typ) {
			targets = append(targets, ep.ID)
		}
	}
	return e, q.InsertWebhookDeliveries(ctx, e, targets, e.Created.Time)
}

// insertEvent writes an event about object, queued for no endpoint yet.
func (s *Service) insertEvent(ctx context.Context, q Queries, appID string, typ payouts.EventType, objectID string, object any) (*EventRecord, error) {
	data, ok := object.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(object); err != nil {
			return nil, err
		}
	}
	e := &EventRecord{Event: payouts.Event{ID: uuid.NewString(), Type: typ, Created: payouts.NewTime(s.now()),
		AppID: appID, ObjectID: objectID, Data: data}}
	return e, q.InsertEvent(ctx, e)
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

// ListEvents returns a page of the app's events, newest first.
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
