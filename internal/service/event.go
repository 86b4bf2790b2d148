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

// outboxStore hands every transaction of the service a recorder, and writes the events of the
// changes it saw before the transaction commits: no state change can forget its event.
type outboxStore struct {
	Store
	s *Service
}

func (o outboxStore) InTx(ctx context.Context, fn func(q Queries) error) error {
	return o.Store.InTx(ctx, func(q Queries) error {
		r := &recorder{Queries: q, s: o.s}
		if err := fn(r); err != nil {
			return err
		}
		return o.s.writeEvents(ctx, q, r.changes)
	})
}

// change is a state change a transaction made, to be written as an event when it ends.
type change struct {
	typ           payouts.EventType
	appID, object string
	render        func(ctx context.Context, q Queries) (any, error)
}

// recorder is the Queries of one transaction, noting the state changes clients hear about.
type recorder struct {
	Queries
	s         *Service
	changes   []change
	transfers map[string]payouts.Transfer // as last written, by id
}

func (r *recorder) note(typ payouts.EventType, appID, id string, render func(context.Context, Queries) (any, error)) {
	r.changes = append(r.changes, change{typ: typ, appID: appID, object: id, render: render})
}

// transferEvents names the event of a transfer reaching a status; payouts have their own.
func transferEvent(t *TransferRecord, status payouts.TransferStatus) payouts.EventType {
	noun := "transfer."
	if t.Type == payouts.TransferPayout {
		noun = "payout."
	}
	switch status {
	case payouts.TransferCreated, payouts.TransferCompleted, payouts.TransferFailed, payouts.TransferFlagged:
		return payouts.EventType(noun + string(status))
	}
	return ""
}

// transferChanged notes a transfer reaching a status. The transfer is rendered from its record
// as last written in the transaction, which the store would only read back.
func (r *recorder) transferChanged(t *TransferRecord, status payouts.TransferStatus) {
	if r.transfers == nil {
		r.transfers = map[string]payouts.Transfer{}
	}
	r.transfers[t.ID] = t.Transfer
	if typ := transferEvent(t, status); typ != "" {
		appID, id := t.AppID, t.ID
		r.note(typ, appID, id, func(ctx context.Context, q Queries) (any, error) {
			return transferObject(ctx, q, appID, r.transfers[id])
		})
	}
}

func (r *recorder) CreateTransfer(ctx context.Context, t *TransferRecord) error {
	if err := r.Queries.CreateTransfer(ctx, t); err != nil {
		return err
	}
	r.transferChanged(t, payouts.TransferCreated)
	r.transferChanged(t, t.Status)
	return nil
}

func (r *recorder) UpdateTransfer(ctx context.Context, t *TransferRecord, from payouts.TransferStatus) error {
	if err := r.Queries.UpdateTransfer(ctx, t, from); err != nil {
		return err
	}
	status := t.Status
	if status == from {
		status = "" // no event, but the record is newer
	}
	r.transferChanged(t, status)
	return nil
}

var linkEvents = map[payouts.PayoutLinkStatus]payouts.EventType{
	payouts.LinkDelivered:      payouts.EventPayoutLinkDelivered,
	payouts.LinkDeliveryFailed: payouts.EventPayoutLinkDeliveryFailed,
	payouts.LinkClaimed:        payouts.EventPayoutLinkClaimed,
	payouts.LinkCanceled:       payouts.EventPayoutLinkCanceled,
}

func (r *recorder) linkChanged(l *PayoutLinkRecord, typ payouts.EventType) {
	s, appID, id := r.s, l.AppID, l.ID
	r.note(typ, appID, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetPayoutLink(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return s.linkOut(rec), nil
	})
}

func (r *recorder) CreatePayoutLink(ctx context.Context, l *PayoutLinkRecord) error {
	if err := r.Queries.CreatePayoutLink(ctx, l); err != nil {
		return err
	}
	r.linkChanged(l, payouts.EventPayoutLinkCreated)
	return nil
}

func (r *recorder) UpdatePayoutLink(ctx context.Context, l *PayoutLinkRecord, from payouts.PayoutLinkStatus) error {
	if err := r.Queries.UpdatePayoutLink(ctx, l, from); err != nil {
		return err
	}
	if typ, ok := linkEvents[l.Status]; ok && l.Status != from {
		r.linkChanged(l, typ)
	}
	return nil
}

func userObject(appID, id string) func(context.Context, Queries) (any, error) {
	return func(ctx context.Context, q Queries) (any, error) {
		u, err := q.GetUser(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return u.User, nil
	}
}

func (r *recorder) CreateUser(ctx context.Context, u *UserRecord) error {
	if err := r.Queries.CreateUser(ctx, u); err != nil {
		return err
	}
	r.note(payouts.EventUserCreated, u.AppID, u.ID, userObject(u.AppID, u.ID))
	return nil
}

func (r *recorder) UpdateUser(ctx context.Context, u *UserRecord) error {
	before, err := r.Queries.GetUser(ctx, u.AppID, u.ID)
	if err != nil {
		return err
	}
	if err := r.Queries.UpdateUser(ctx, u); err != nil {
		return err
	}
	if u.Verified && !before.Verified {
		r.note(payouts.EventUserVerified, u.AppID, u.ID, userObject(u.AppID, u.ID))
	}
	if u.Compliance != before.Compliance {
		r.note(payouts.EventUserComplianceUpdated, u.AppID, u.ID, userObject(u.AppID, u.ID))
	}
	return nil
}

func (r *recorder) UpdateFlow(ctx context.Context, f *FlowRecord) error {
	before, err := r.Queries.GetFlow(ctx, f.AppID, f.ID)
	if err != nil {
		return err
	}
	if err := r.Queries.UpdateFlow(ctx, f); err != nil {
		return err
	}
	if f.Done() && !before.Done() {
		s, appID, id := r.s, f.AppID, f.ID
		r.note(payouts.EventFlowCompleted, appID, id, func(ctx context.Context, q Queries) (any, error) {
			rec, err := q.GetFlow(ctx, appID, id)
			if err != nil {
				return nil, err
			}
			return s.flowOut(rec), nil
		})
	}
	return nil
}

// writeEvents renders each changed object once, as it stands at the end of the transaction,
// and emits the events in the order the changes happened, reading each app's endpoints once.
func (s *Service) writeEvents(ctx context.Context, q Queries, changes []change) error {
	rendered := map[string]json.RawMessage{}
	endpoints := map[string][]WebhookEndpointRecord{}
	for _, c := range changes {
		eps, ok := endpoints[c.appID]
		if !ok {
			var err error
			if eps, err = q.ListWebhookEndpoints(ctx, c.appID); err != nil {
				return err
			}
			endpoints[c.appID] = eps
		}
		obj, ok := rendered[c.object]
		if !ok {
			v, err := c.render(ctx, q)
			if err != nil {
				return err
			}
			if obj, err = json.Marshal(v); err != nil {
				return err
			}
			rendered[c.object] = obj
		}
		if _, err := s.emitTo(ctx, q, eps, c.appID, c.typ, c.object, obj); err != nil {
			return err
		}
	}
	return nil
}

// transferObject is a transfer as GET /v2/transfers/{id} answers, with its ledger lines and
// history read in the transaction.
func transferObject(ctx context.Context, q Queries, appID string, t payouts.Transfer) (*payouts.Transfer, error) {
	postings, err := q.PostingsOfTransfers(ctx, appID, []string{t.ID})
	if err != nil {
		return nil, err
	}
	t.Transactions = make([]payouts.Transaction, 0, len(postings))
	for _, p := range postings {
		t.Transactions = append(t.Transactions, transactionOf(p))
	}
	if t.StatusHistory, err = q.TransferHistory(ctx, appID, t.ID); err != nil {
		return nil, err
	}
	return &t, nil
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
