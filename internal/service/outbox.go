package service

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// outboxStore hands every transaction of the service a recorder, and writes the events of the
// changes it saw before the transaction commits: no state change can forget its event.
type outboxStore struct {
	Store
	s *Service
}

func (o outboxStore) InTx(ctx context.Context, fn func(q Queries) error) error {
	return o.InTxWith(ctx, Intent{}, fn)
}

func (o outboxStore) InTxWith(ctx context.Context, intent Intent, fn func(q Queries) error) error {
	return o.Store.InTxWith(ctx, intent, func(q Queries) error {
		r := &recorder{Queries: q, s: o.s}
		if err := fn(r); err != nil {
			return err
		}
		if err := r.readTransfers(ctx, q); err != nil {
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
	// objects are the changed transfers as GET /v2/transfers/{id} answers, read in the
	// transaction when it ends (readTransfers), for their events.
	objects map[string]*payouts.Transfer
	// fresh are the transfers created in the transaction and not changed since: such a
	// transfer is rendered as written, with its postings made in the transaction (made, by
	// transfer id, posted before or after the transfer was), without reading it back.
	fresh map[string]bool
	made  map[string][]*ledger.Posting
	// read are the postings of the transfers whose postings the transaction read whole
	// (PostingsOfTransfers), as its own movements left them since: a settled transfer is
	// rendered with them, its history alone read back.
	read map[string][]ledger.Posting
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
	appID, id := t.AppID, t.ID
	object := func(context.Context, Queries) (any, error) { return r.objects[id], nil }
	if typ := transferEvent(t, status); typ != "" {
		r.note(typ, appID, id, object)
	}
	if status == "" || status == payouts.TransferCreated {
		return
	}
	// The public API counts payouts as transfers: it names a payout's end as a transfer's, says
	// transfer.updated of every status a transfer takes after it is made, and a link's payout
	// completing is the link paid out.
	if t.Type == payouts.TransferPayout && (status == payouts.TransferCompleted || status == payouts.TransferFailed) {
		r.note(payouts.EventType("transfer."+string(status)), appID, id, object)
	}
	r.note(payouts.EventTransferUpdated, appID, id, object)
	if t.Type == payouts.TransferPayout && status == payouts.TransferCompleted && t.PayoutLinkID != nil {
		r.linkNoted(payouts.EventPayoutLinkPaidOut, appID, *t.PayoutLinkID)
	}
}

// readTransfers reads the ledger lines and histories of the transfers the changes are about, as
// written in the transaction, in two queries per app rather than two per transfer.
func (r *recorder) readTransfers(ctx context.Context, q Queries) error {
	byApp := map[string][]payouts.Transfer{}
	r.objects = map[string]*payouts.Transfer{}
	for _, c := range r.changes {
		t, ok := r.transfers[c.object]
		if _, seen := r.objects[c.object]; !ok || seen {
			continue
		}
		if r.objects[c.object] = r.asWritten(t); r.objects[c.object] == nil {
			byApp[c.appID] = append(byApp[c.appID], t)
		}
	}
	for appID, ts := range byApp {
		ts, err := withLines(ctx, q, appID, ts, r.read)
		if err != nil {
			return err
		}
		ids := make([]string, len(ts))
		for i := range ts {
			ids[i] = ts[i].ID
		}
		histories, err := q.TransferHistories(ctx, appID, ids)
		if err != nil {
			return err
		}
		for i := range ts {
			ts[i].StatusHistory = histories[ts[i].ID]
			r.objects[ts[i].ID] = &ts[i]
		}
	}
	return nil
}

// asWritten is a transfer created in the transaction as it was written (its one status and the
// postings made with it, numbered by Post), or nil when it changed since.
func (r *recorder) asWritten(t payouts.Transfer) *payouts.Transfer {
	if !r.fresh[t.ID] {
		return nil
	}
	postings := r.made[t.ID]
	lines := make([]payouts.Transaction, len(postings))
	for i, p := range postings {
		lines[i] = transactionOf(*p)
	}
	return firstStatus(t, lines)
}

func (r *recorder) CreateTransfer(ctx context.Context, t *TransferRecord) error {
	if err := r.Queries.CreateTransfer(ctx, t); err != nil {
		return err
	}
	if r.fresh == nil {
		r.fresh = map[string]bool{}
	}
	r.fresh[t.ID] = true
	r.transferChanged(t, payouts.TransferCreated)
	r.transferChanged(t, t.Status)
	return nil
}

func (r *recorder) UpdateTransfer(ctx context.Context, t *TransferRecord, from payouts.TransferStatus) error {
	delete(r.fresh, t.ID) // a second status
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

func (r *recorder) UpdateClaimedPayout(ctx context.Context, t *TransferRecord, from RailState) error {
	if err := r.Queries.UpdateClaimedPayout(ctx, t, from); err != nil {
		return err
	}
	r.transferChanged(t, "") // no event, but the record is newer
	return nil
}

// PostingsOfTransfers notes the postings read, each transfer's whole, for its events (read).
func (r *recorder) PostingsOfTransfers(ctx context.Context, appID string, transferIDs []string) ([]ledger.Posting, error) {
	postings, err := r.Queries.PostingsOfTransfers(ctx, appID, transferIDs)
	if err != nil {
		return nil, err
	}
	if r.read == nil {
		r.read = map[string][]ledger.Posting{}
	}
	for _, id := range transferIDs {
		r.read[id] = []ledger.Posting{}
	}
	for _, p := range postings {
		r.read[p.TransferID] = append(r.read[p.TransferID], p)
	}
	return postings, nil
}

func (r *recorder) Post(ctx context.Context, m ledger.Movement) error {
	for _, p := range m.Settled() {
		delete(r.fresh, p.TransferID) // its postings changed: not as written
	}
	if err := r.Queries.Post(ctx, m); err != nil {
		return err
	}
	if r.made == nil {
		r.made = map[string][]*ledger.Posting{}
	}
	for _, p := range m.Settled() {
		r.settled(p)
	}
	for _, p := range m.Made() {
		r.made[p.TransferID] = append(r.made[p.TransferID], p)
		if postings, ok := r.read[p.TransferID]; ok {
			r.read[p.TransferID] = append(postings, *p)
		}
	}
	return nil
}

// settled puts a posting the transaction settled in its new state among the postings read of
// its transfer; a posting not among them makes the transfer's lines read back.
func (r *recorder) settled(p *ledger.Posting) {
	postings, ok := r.read[p.TransferID]
	if !ok {
		return
	}
	i := slices.IndexFunc(postings, func(read ledger.Posting) bool { return read.ID == p.ID })
	if i < 0 {
		delete(r.read, p.TransferID)
		return
	}
	postings[i] = *p
}

var linkEvents = map[payouts.PayoutLinkStatus]payouts.EventType{
	payouts.LinkDelivered:      payouts.EventPayoutLinkDelivered,
	payouts.LinkDeliveryFailed: payouts.EventPayoutLinkDeliveryFailed,
	payouts.LinkClaimed:        payouts.EventPayoutLinkClaimed,
	payouts.LinkCanceled:       payouts.EventPayoutLinkCanceled,
}

// linkReached notes a link reaching a status that has an event: ours, then the public API's
// names for it (sent when the payee holds it, and updated for any change).
func (r *recorder) linkReached(l *PayoutLinkRecord) {
	typ, ok := linkEvents[l.Status]
	if !ok {
		return
	}
	r.linkChanged(l, typ)
	if l.Status == payouts.LinkDelivered {
		r.linkChanged(l, payouts.EventPayoutLinkSent)
	}
	r.linkChanged(l, payouts.EventPayoutLinkUpdated)
}

func (r *recorder) linkChanged(l *PayoutLinkRecord, typ payouts.EventType) {
	r.linkNoted(typ, l.AppID, l.ID)
}

// linkNoted notes an event of the app's link id, rendered as the API answers the link.
func (r *recorder) linkNoted(typ payouts.EventType, appID, id string) {
	s := r.s
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
	// A link made delivered (its payee holds it as it is made) or claimed (paid at once) has
	// reached that status too, and says so as a later change to it would.
	r.linkReached(l)
	return nil
}

func (r *recorder) UpdatePayoutLink(ctx context.Context, l *PayoutLinkRecord, from payouts.PayoutLinkStatus) error {
	if err := r.Queries.UpdatePayoutLink(ctx, l, from); err != nil {
		return err
	}
	if l.Status != from {
		r.linkReached(l)
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
	if u.Compliance.IDVerified && !before.Compliance.IDVerified {
		r.note(payouts.EventUserIDVerified, u.AppID, u.ID, userObject(u.AppID, u.ID))
	}
	return nil
}

// UpdateApp notes an app's own details changing (its ACH account, its business compliance, the
// organization it joins); its wallet and metrics move with transfers, whose events say so.
func (r *recorder) UpdateApp(ctx context.Context, a *AppRecord) error {
	if err := r.Queries.UpdateApp(ctx, a); err != nil {
		return err
	}
	if a.Kind != KindApp {
		return nil
	}
	s, id := r.s, a.ID
	r.note(payouts.EventAppUpdated, id, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetApp(ctx, id)
		if err != nil {
			return nil, err
		}
		return s.appOf(ctx, q, rec)
	})
	return nil
}

func (r *recorder) SavePayoutMethod(ctx context.Context, m *PayoutMethodRecord) error {
	if err := r.Queries.SavePayoutMethod(ctx, m); err != nil {
		return err
	}
	r.note(payouts.EventUserPayoutMethodUpdated, m.AppID, m.UserID, userObject(m.AppID, m.UserID))
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
	s, appID, id := r.s, f.AppID, f.ID
	flow := func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetFlow(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return s.flowOut(rec), nil
	}
	if len(f.CompletedSteps) > len(before.CompletedSteps) {
		r.note(payouts.EventFlowUpdated, appID, id, flow) // the public API's name for a step done
	}
	// The flow's background check step is the user's background check: done, it is the user's.
	if f.UserID != nil && slices.Contains(f.CompletedSteps, payouts.StepBackgroundCheck) &&
		!slices.Contains(before.CompletedSteps, payouts.StepBackgroundCheck) {
		r.note(payouts.EventUserBackgroundCheckUpdated, appID, *f.UserID, userObject(appID, *f.UserID))
	}
	if f.Done() && !before.Done() {
		r.note(payouts.EventFlowCompleted, appID, id, flow)
	}
	return nil
}

// payoutRequestChanged notes an event of a payout request: by default the one of its status.
func (r *recorder) payoutRequestChanged(p *PayoutRequestRecord, typ payouts.EventType) {
	if typ == "" {
		typ = payouts.EventType("payout_request." + string(p.Status))
	}
	s, appID, id := r.s, p.AppID, p.ID
	r.note(typ, appID, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetPayoutRequest(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return s.payoutRequestOf(ctx, q, rec)
	})
}

func (r *recorder) CreatePayoutRequest(ctx context.Context, p *PayoutRequestRecord) error {
	if err := r.Queries.CreatePayoutRequest(ctx, p); err != nil {
		return err
	}
	r.payoutRequestChanged(p, "")
	return nil
}

func (r *recorder) UpdatePayoutRequest(ctx context.Context, p *PayoutRequestRecord, from payouts.PayoutRequestStatus) error {
	if err := r.Queries.UpdatePayoutRequest(ctx, p, from); err != nil {
		return err
	}
	if p.Status != from {
		r.payoutRequestChanged(p, "")
		r.payoutRequestChanged(p, payouts.EventPayoutRequestUpdated)
	}
	return nil
}

func (r *recorder) FinishTransferBatch(ctx context.Context, b *TransferBatchRecord) error {
	if err := r.Queries.FinishTransferBatch(ctx, b); err != nil {
		return err
	}
	appID, id := b.AppID, b.ID
	r.note(payouts.EventTransferBatchCompleted, appID, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetTransferBatch(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return rec.TransferBatch, nil
	})
	return nil
}

// writeEvents renders each changed object once, as it stands at the end of the transaction,
// and writes the events in the order the changes happened, reading each app's endpoints once.
func (s *Service) writeEvents(ctx context.Context, q Queries, changes []change) error {
	rendered := map[string]json.RawMessage{}
	endpoints := map[string][]WebhookEndpointRecord{}
	events := make([]*EventRecord, 0, len(changes))
	for _, c := range changes {
		if _, ok := endpoints[c.appID]; !ok {
			eps, err := q.ListWebhookEndpoints(ctx, c.appID)
			if err != nil {
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
		e, err := s.newEvent(c.appID, c.typ, c.object, obj)
		if err != nil {
			return err
		}
		events = append(events, e)
	}
	return writeOutbox(ctx, q, events, endpoints)
}
