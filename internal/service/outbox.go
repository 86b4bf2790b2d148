package service

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// Tx is one write transaction of the service: the store's statements, and the events the code
// that decides each change notes beside it (transferCreated, linkReached, userUpdated, ...).
// The events are written, rendered as their objects stand at the end, just before the
// transaction commits: a change and its events commit together or not at all.
type Tx struct {
	Queries
	s       *Service
	changes []change
	// transfers are the changed transfers as last written, by id; written are those created
	// here and not changed since, as written with their postings, which need no read back.
	transfers map[string]payouts.Transfer
	written   map[string]*payouts.Transfer
	// settled are the postings of transfers settled in the transaction, as their settlement
	// left them (transferSettled): only their histories are read back.
	settled map[string][]ledger.Posting
	// plan is what the transaction's decided request writes, applied at its end (apply).
	plan Plan
}

// inTx runs fn in one write transaction of the store and writes the events fn noted in it.
func (s *Service) inTx(ctx context.Context, fn func(q *Tx) error) error {
	return s.inTxWith(ctx, Intent{}, fn)
}

// inTxWith is inTx for a write that says beforehand what it will read and claim (Intent).
func (s *Service) inTxWith(ctx context.Context, intent Intent, fn func(q *Tx) error) error {
	return s.store.InTxWith(ctx, intent, func(q Queries) error {
		tx := &Tx{Queries: q, s: s}
		if err := fn(tx); err != nil {
			return err
		}
		if err := tx.writeEvents(ctx); err != nil {
			return err
		}
		return tx.apply(ctx)
	})
}

// change is a state change a transaction made, to be written as an event when it ends.
type change struct {
	typ           payouts.EventType
	appID, object string
	render        func(ctx context.Context, q Queries) (any, error)
}

func (q *Tx) note(typ payouts.EventType, appID, id string, render func(context.Context, Queries) (any, error)) {
	q.changes = append(q.changes, change{typ: typ, appID: appID, object: id, render: render})
}

// transferEvent names the event of a transfer reaching a status; payouts have their own.
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

// transferCreated notes the events of a transfer just written: created, and the status it was
// made in.
func (q *Tx) transferCreated(t *TransferRecord) {
	q.transferChanged(t, payouts.TransferCreated)
	q.transferChanged(t, t.Status)
}

// transferWritten gives the postings a transfer created in the transaction was made with, so its
// events render it as written (written) instead of reading it back, and returns it so.
func (q *Tx) transferWritten(t *TransferRecord, postings []ledger.Posting) *payouts.Transfer {
	if q.written == nil {
		q.written = map[string]*payouts.Transfer{}
	}
	w := written(t, postings)
	q.written[t.ID] = w
	return w
}

// transferSettled gives the postings of a transfer as the transaction's last movement of them
// left them, so its events read back its history alone.
func (q *Tx) transferSettled(transferID string, postings []ledger.Posting) {
	if q.settled == nil {
		q.settled = map[string][]ledger.Posting{}
	}
	q.settled[transferID] = postings
}

// transferUpdated notes the events of a transfer written again, from status from: those of its
// new status, or none when its status is the same (its record is newer all the same).
func (q *Tx) transferUpdated(t *TransferRecord, from payouts.TransferStatus) {
	delete(q.written, t.ID) // read back: its postings or history changed
	status := t.Status
	if status == from {
		status = ""
	}
	q.transferChanged(t, status)
}

// transferChanged notes a transfer reaching a status (none: only its record changed).
func (q *Tx) transferChanged(t *TransferRecord, status payouts.TransferStatus) {
	if q.transfers == nil {
		q.transfers = map[string]payouts.Transfer{}
	}
	q.transfers[t.ID] = t.Transfer
	appID, id := t.AppID, t.ID
	object := func(context.Context, Queries) (any, error) { return q.written[id], nil } // set by readTransfers
	if typ := transferEvent(t, status); typ != "" {
		q.note(typ, appID, id, object)
	}
	if status == "" || status == payouts.TransferCreated {
		return
	}
	// The public API counts payouts as transfers: it names a payout's end as a transfer's, says
	// transfer.updated of every status a transfer takes after it is made, and a link's payout
	// completing is the link paid out.
	if t.Type == payouts.TransferPayout && (status == payouts.TransferCompleted || status == payouts.TransferFailed) {
		q.note(payouts.EventType("transfer."+string(status)), appID, id, object)
	}
	q.note(payouts.EventTransferUpdated, appID, id, object)
	if t.Type == payouts.TransferPayout && status == payouts.TransferCompleted && t.PayoutLinkID != nil {
		q.linkNoted(payouts.EventPayoutLinkPaidOut, appID, *t.PayoutLinkID)
	}
}

// readTransfers reads back the ledger lines and histories of the changed transfers not known as
// written, in two queries per app rather than two per transfer, into q.written.
func (q *Tx) readTransfers(ctx context.Context) error {
	byApp := map[string][]payouts.Transfer{}
	seen := map[string]bool{}
	for _, c := range q.changes {
		t, ok := q.transfers[c.object]
		if !ok || seen[c.object] || q.written[c.object] != nil {
			continue
		}
		seen[c.object] = true
		byApp[c.appID] = append(byApp[c.appID], t)
	}
	if q.written == nil {
		q.written = map[string]*payouts.Transfer{}
	}
	for appID, ts := range byApp {
		ts, err := withLines(ctx, q.Queries, appID, ts, q.settled)
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
		for _, u := range q.plan.Updates {
			if u.Transfer.Status != u.From {
				histories[u.Transfer.ID] = append(histories[u.Transfer.ID], payouts.StatusChange{Status: u.Transfer.Status,
					At: payouts.NewTime(u.Transfer.Updated), Reason: u.Transfer.FailureReason})
			}
		}
		for i := range ts {
			ts[i].StatusHistory = histories[ts[i].ID]
			q.written[ts[i].ID] = &ts[i]
		}
	}
	return nil
}

var linkEvents = map[payouts.PayoutLinkStatus]payouts.EventType{
	payouts.LinkDelivered:      payouts.EventPayoutLinkDelivered,
	payouts.LinkDeliveryFailed: payouts.EventPayoutLinkDeliveryFailed,
	payouts.LinkClaimed:        payouts.EventPayoutLinkClaimed,
	payouts.LinkCanceled:       payouts.EventPayoutLinkCanceled,
}

// linkCreated notes the events of a link just written: created, and, for a link made delivered
// (its payee holds it as it is made) or claimed (paid at once), the status it reached as a later
// change to it would.
func (q *Tx) linkCreated(l *PayoutLinkRecord) {
	q.linkNoted(payouts.EventPayoutLinkCreated, l.AppID, l.ID)
	q.linkReached(l)
}

// linkUpdated notes the events of a link written again from status from: none unless its status
// changed.
func (q *Tx) linkUpdated(l *PayoutLinkRecord, from payouts.PayoutLinkStatus) {
	if l.Status != from {
		q.linkReached(l)
	}
}

// linkReached notes a link reaching a status that has an event: ours, then the public API's
// names for it (sent when the payee holds it, and updated for any change).
func (q *Tx) linkReached(l *PayoutLinkRecord) {
	typ, ok := linkEvents[l.Status]
	if !ok {
		return
	}
	q.linkNoted(typ, l.AppID, l.ID)
	if l.Status == payouts.LinkDelivered {
		q.linkNoted(payouts.EventPayoutLinkSent, l.AppID, l.ID)
	}
	q.linkNoted(payouts.EventPayoutLinkUpdated, l.AppID, l.ID)
}

// linkNoted notes an event of the app's link id, rendered as the API answers the link.
func (q *Tx) linkNoted(typ payouts.EventType, appID, id string) {
	s := q.s
	q.note(typ, appID, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetPayoutLink(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return s.linkOut(rec), nil
	})
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

func (q *Tx) userCreated(u *UserRecord) {
	q.note(payouts.EventUserCreated, u.AppID, u.ID, userObject(u.AppID, u.ID))
}

// userUpdated notes the events of a user written as u over before: verified, its compliance
// changed, its identity verified.
func (q *Tx) userUpdated(before payouts.User, u *UserRecord) {
	q.userNoted(before, u, userObject(u.AppID, u.ID))
}

// userNoted notes the events of u over before, rendered by object.
func (q *Tx) userNoted(before payouts.User, u *UserRecord, object func(context.Context, Queries) (any, error)) {
	if u.Verified && !before.Verified {
		q.note(payouts.EventUserVerified, u.AppID, u.ID, object)
	}
	if u.Compliance != before.Compliance {
		q.note(payouts.EventUserComplianceUpdated, u.AppID, u.ID, object)
	}
	if u.Compliance.IDVerified && !before.Compliance.IDVerified {
		q.note(payouts.EventUserIDVerified, u.AppID, u.ID, object)
	}
}

// appUpdated notes an app's own details changing (its ACH account, its business compliance, the
// organization it joins); its wallet and metrics move with transfers, whose events say so.
func (q *Tx) appUpdated(a *AppRecord) {
	if a.Kind != KindApp {
		return
	}
	s, id := q.s, a.ID
	q.note(payouts.EventAppUpdated, id, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetApp(ctx, id)
		if err != nil {
			return nil, err
		}
		return s.appOf(ctx, q, rec)
	})
}

func (q *Tx) payoutMethodSaved(m *PayoutMethodRecord) {
	q.note(payouts.EventUserPayoutMethodUpdated, m.AppID, m.UserID, userObject(m.AppID, m.UserID))
}

// flowUpdated notes the events of a flow written as f over what it was before: a step done, the
// user's background check done, the flow done.
func (q *Tx) flowUpdated(before payouts.Flow, f *FlowRecord) {
	s, appID, id := q.s, f.AppID, f.ID
	flow := func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetFlow(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return s.flowOut(rec), nil
	}
	if len(f.CompletedSteps) > len(before.CompletedSteps) {
		q.note(payouts.EventFlowUpdated, appID, id, flow) // the public API's name for a step done
	}
	// The flow's background check step is the user's background check: done, it is the user's.
	if f.UserID != nil && slices.Contains(f.CompletedSteps, payouts.StepBackgroundCheck) &&
		!slices.Contains(before.CompletedSteps, payouts.StepBackgroundCheck) {
		q.note(payouts.EventUserBackgroundCheckUpdated, appID, *f.UserID, userObject(appID, *f.UserID))
	}
	if f.Done() && !before.Done() {
		q.note(payouts.EventFlowCompleted, appID, id, flow)
	}
}

// payoutRequestChanged notes an event of a payout request: by default the one of its status.
func (q *Tx) payoutRequestChanged(p *PayoutRequestRecord, typ payouts.EventType) {
	if typ == "" {
		typ = payouts.EventType("payout_request." + string(p.Status))
	}
	s, appID, id := q.s, p.AppID, p.ID
	q.note(typ, appID, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetPayoutRequest(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return s.payoutRequestOf(ctx, q, rec)
	})
}

// decidePayoutRequest writes a payout request approved or rejected, and notes its events.
func (q *Tx) decidePayoutRequest(ctx context.Context, p *PayoutRequestRecord) error {
	if err := q.UpdatePayoutRequest(ctx, p, payouts.RequestCreated); err != nil {
		return err
	}
	q.payoutRequestChanged(p, "")
	q.payoutRequestChanged(p, payouts.EventPayoutRequestUpdated)
	return nil
}

func (q *Tx) transferBatchFinished(b *TransferBatchRecord) {
	appID, id := b.AppID, b.ID
	q.note(payouts.EventTransferBatchCompleted, appID, id, func(ctx context.Context, q Queries) (any, error) {
		rec, err := q.GetTransferBatch(ctx, appID, id)
		if err != nil {
			return nil, err
		}
		return rec.TransferBatch, nil
	})
}

// writeEvents renders each changed object once, as it stands at the end of the transaction,
// and adds the events, in the order the changes happened, and their deliveries to the
// transaction's plan, reading each app's endpoints once.
func (q *Tx) writeEvents(ctx context.Context) error {
	if err := q.readTransfers(ctx); err != nil {
		return err
	}
	rendered := map[string]json.RawMessage{}
	endpoints := map[string][]WebhookEndpointRecord{}
	events := make([]*EventRecord, 0, len(q.changes))
	for _, c := range q.changes {
		if _, ok := endpoints[c.appID]; !ok {
			eps, err := q.ListWebhookEndpoints(ctx, c.appID)
			if err != nil {
				return err
			}
			endpoints[c.appID] = eps
		}
		obj, ok := rendered[c.object]
		if !ok {
			v, err := c.render(ctx, q.Queries)
			if err != nil {
				return err
			}
			if obj, err = json.Marshal(v); err != nil {
				return err
			}
			rendered[c.object] = obj
		}
		e, err := q.s.newEvent(c.appID, c.typ, c.object, obj)
		if err != nil {
			return err
		}
		events = append(events, e)
	}
	events, deliveries := outbox(events, endpoints)
	q.plan.Events, q.plan.Deliveries = append(q.plan.Events, events...), append(q.plan.Deliveries, deliveries...)
	return nil
}

// planTransferUpdate decides t moved on from status from into q's plan and notes its events,
// which render it with the step its history gains when the plan is applied.
func (q *Tx) planTransferUpdate(t *TransferRecord, from payouts.TransferStatus) {
	q.plan.Updates = append(q.plan.Updates, TransferUpdate{Transfer: *t, From: from})
	q.transferUpdated(t, from)
}

// updateUser writes u over before and notes its events.
func (q *Tx) updateUser(ctx context.Context, before payouts.User, u *UserRecord) error {
	if err := q.UpdateUser(ctx, u); err != nil {
		return err
	}
	q.userUpdated(before, u)
	return nil
}

// updateFlow writes f over before and notes its events.
func (q *Tx) updateFlow(ctx context.Context, before payouts.Flow, f *FlowRecord) error {
	if err := q.UpdateFlow(ctx, f); err != nil {
		return err
	}
	q.flowUpdated(before, f)
	return nil
}
