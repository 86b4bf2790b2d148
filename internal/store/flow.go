package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const flowColumns = `seq, id, app_id, user_id, steps, completed_steps, payout_link_id, redirect_url, metadata, created`

func scanFlow(row interface{ Scan(...any) error }) (service.FlowRecord, error) {
	var f service.FlowRecord
	var userID, linkID, md sql.NullString
	var steps, done string
	var created int64
	err := row.Scan(&f.Seq, &f.ID, &f.AppID, &userID, &steps, &done, &linkID, &f.RedirectURL, &md, &created)
	if err != nil {
		return f, noRecord(err)
	}
	if err := json.Unmarshal([]byte(steps), &f.Steps); err != nil {
		return f, err
	}
	if err := json.Unmarshal([]byte(done), &f.CompletedSteps); err != nil {
		return f, err
	}
	f.UserID, f.PayoutLinkID, f.Metadata = stringPtr(userID), stringPtr(linkID), metadataOf(md)
	f.Created = payouts.NewTime(sqldb.FromMicros(created))
	return f, nil
}

func stepsJSON(steps []string) string {
	if steps == nil {
		steps = []string{}
	}
	b, _ := json.Marshal(steps)
	return string(b)
}

// CreateFlow inserts a flow.
func (q *Queries) CreateFlow(ctx context.Context, f *service.FlowRecord) (err error) {
	defer wrap(&err, "create flow %s", f.ID)
	return q.queryRowTouching(ctx, writingOthers, `INSERT INTO flows (id, app_id, user_id, steps, completed_steps, payout_link_id,
		redirect_url, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		f.ID, f.AppID, sqlNullPtr(f.UserID), stepsJSON(f.Steps), stepsJSON(f.CompletedSteps), sqlNullPtr(f.PayoutLinkID),
		f.RedirectURL, metadataValue(f.Metadata), sqldb.Micros(f.Created.Time)).Scan(&f.Seq)
}

// GetFlow reads one flow of the app.
func (q *Queries) GetFlow(ctx context.Context, appID, id string) (_ *service.FlowRecord, err error) {
	defer wrap(&err, "get flow %s", id)
	f, err := scanFlow(q.queryRowLocked(ctx, readingOthers, `SELECT `+flowColumns+` FROM flows WHERE app_id = ? AND id = ?`, "", appID, id))
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// FlowByID reads a flow by id alone, for the hosted pages.
func (q *Queries) FlowByID(ctx context.Context, id string) (_ *service.FlowRecord, err error) {
	defer wrap(&err, "flow by id %s", id)
	f, err := scanFlow(q.queryRowLocked(ctx, readingOthers, `SELECT `+flowColumns+` FROM flows WHERE id = ?`, "", id))
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// UpdateFlow writes a flow's user and completed steps.
func (q *Queries) UpdateFlow(ctx context.Context, f *service.FlowRecord) (err error) {
	defer wrap(&err, "update flow %s", f.ID)
	return q.execOne(ctx, writingOthers, `UPDATE flows SET user_id = ?, completed_steps = ? WHERE app_id = ? AND id = ?`,
		sqlNullPtr(f.UserID), stepsJSON(f.CompletedSteps), f.AppID, f.ID)
}

// ListFlows reads a page of the app's flows, newest first; of one user through flows_user.
func (q *Queries) ListFlows(ctx context.Context, appID string, page payouts.Page, f payouts.FlowFilter) (_ []service.FlowRecord, _ bool, err error) {
	defer wrap(&err, "list flows")
	l := listQuery{selectFrom: `SELECT ` + flowColumns + ` FROM flows`, order: "seq", cursor: q.seqCursor("flows", appID)}
	l.filter("app_id = ?", appID)
	if f.UserID != "" {
		l.filter("user_id = ?", f.UserID)
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (service.FlowRecord, error) { return scanFlow(r) })
}
