package store

import (
	"context"
	"database/sql"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const eventColumns = `seq, id, app_id, type, object_id, data, created`

func scanEvent(row interface{ Scan(...any) error }) (service.EventRecord, error) {
	var e service.EventRecord
	var data string
	var created int64
	if err := row.Scan(&e.Seq, &e.ID, &e.AppID, &e.Type, &e.ObjectID, &data, &created); err != nil {
		return e, noRecord(err)
	}
	e.Data = []byte(data)
	e.Created = payouts.NewTime(sqldb.FromMicros(created))
	return e, nil
}

// InsertEvents writes events, a few hundred per statement, and sets their seqs, which follow
// the order given; in a write transaction it holds them.
func (q *Queries) InsertEvents(ctx context.Context, events []*service.EventRecord) (err error) {
	defer wrap(&err, "insert %d events", len(events))
	rows := make([]heldEvent, len(events))
	for i, e := range events {
		rows[i] = heldEvent{record: *e, to: e}
	}
	if q.job == nil {
		return insertNow(ctx, q, eventsTable, eventWriter, rows)
	}
	for _, r := range rows {
		q.job.st.held.events.hold(r)
		q.wrote(eventWriter.insert)
	}
	return nil
}

// heldEvent is an event's row as it was when made, and the caller's record, handed its seq.
type heldEvent struct {
	record service.EventRecord
	to     *service.EventRecord
}

var eventWriter = writer[heldEvent]{
	insert: `INSERT INTO events (id, app_id, type, object_id, data, created)`,
	values: func(r *heldEvent) []any {
		e := &r.record
		return []any{e.ID, e.AppID, e.Type, e.ObjectID, string(e.Data), sqldb.Micros(e.Created.Time)}
	},
	key: func(r *heldEvent, seq int64) { r.to.Seq = seq },
}

// GetEvent reads one event of the app.
func (q *Queries) GetEvent(ctx context.Context, appID, id string) (_ *service.EventRecord, err error) {
	defer wrap(&err, "get event %s", id)
	e, err := scanEvent(q.queryRowTouching(ctx, reading(eventsTable), `SELECT `+eventColumns+` FROM events WHERE app_id = ? AND id = ?`, appID, id))
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// ListEvents reads a page of the app's events, newest first, of f's type, object and creation range.
func (q *Queries) ListEvents(ctx context.Context, appID string, page payouts.Page, f payouts.EventFilter) (_ []service.EventRecord, _ bool, err error) {
	defer wrap(&err, "list events")
	l := listQuery{selectFrom: `SELECT ` + eventColumns + ` FROM events`, order: "seq", cursor: q.seqCursor("events", appID)}
	var match listQuery
	if f.Type != "" {
		match.filter("type = ?", f.Type)
	}
	if f.ObjectID != "" {
		match.filter("object_id = ?", f.ObjectID)
	}
	if err := listRange(ctx, &l, appID, f.Range(), match, q.seqBisectionSeek("events")); err != nil {
		return nil, false, err
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (service.EventRecord, error) { return scanEvent(r) })
}
