package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

const endpointColumns = `seq, id, app_id, url, event_types, enabled, description, disabled_reason, secret, old_secret,
	old_secret_until, failing_since, created`

func scanEndpoint(row interface{ Scan(...any) error }) (service.WebhookEndpointRecord, error) {
	var e service.WebhookEndpointRecord
	var types string
	var oldUntil, failing, created int64
	err := row.Scan(&e.Seq, &e.ID, &e.AppID, &e.URL, &types, &e.Enabled, &e.Description, &e.DisabledReason,
		&e.SealedSecret, &e.SealedOld, &oldUntil, &failing, &created)
	if err != nil {
		return e, noRecord(err)
	}
	e.EventTypes = []payouts.EventType{}
	for t := range strings.SplitSeq(types, ",") {
		if t != "" {
			e.EventTypes = append(e.EventTypes, payouts.EventType(t))
		}
	}
	if oldUntil != 0 {
		e.OldUntil = sqldb.FromMicros(oldUntil)
	}
	if failing != 0 {
		e.FailingSince = sqldb.FromMicros(failing)
	}
	e.Created = payouts.NewTime(sqldb.FromMicros(created))
	return e, nil
}

func joinTypes(types []payouts.EventType) string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

// CreateWebhookEndpoint inserts an endpoint.
func (q *Queries) CreateWebhookEndpoint(ctx context.Context, e *service.WebhookEndpointRecord) (err error) {
	defer wrap(&err, "create webhook endpoint %s", e.ID)
	return q.queryRowTouching(ctx, writing(endpointsTable), `INSERT INTO webhook_endpoints (id, app_id, url, event_types, enabled, description,
		disabled_reason, secret, old_secret, old_secret_until, failing_since, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		e.ID, e.AppID, e.URL, joinTypes(e.EventTypes), e.Enabled, e.Description, e.DisabledReason, e.SealedSecret,
		e.SealedOld, micros0(e.OldUntil), micros0(e.FailingSince), sqldb.Micros(e.Created.Time)).Scan(&e.Seq)
}

// GetWebhookEndpoint reads one endpoint of the app.
func (q *Queries) GetWebhookEndpoint(ctx context.Context, appID, id string) (_ *service.WebhookEndpointRecord, err error) {
	defer wrap(&err, "get webhook endpoint %s", id)
	e, err := scanEndpoint(q.queryRowLocked(ctx, reading(endpointsTable), `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE app_id = ? AND id = ?`, "", appID, id))
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// ListWebhookEndpoints reads every endpoint of the app, newest first.
func (q *Queries) ListWebhookEndpoints(ctx context.Context, appID string) (_ []service.WebhookEndpointRecord, err error) {
	defer wrap(&err, "list webhook endpoints")
	if eps, ok := q.batchReads().webhookEndpoints(appID); ok {
		return eps, nil
	}
	eps, err := q.listWebhookEndpoints(ctx, appID)
	if err == nil {
		q.job.keepWebhookEndpoints(appID, eps)
	}
	return eps, err
}

// endpointsStmt reads the app's webhook endpoints, newest first, handing each to add.
func endpointsStmt(appID string, add func(service.WebhookEndpointRecord)) sqldb.Stmt {
	return sqldb.Stmt{Query: `SELECT ` + endpointColumns + ` FROM webhook_endpoints WHERE app_id = ? ORDER BY seq DESC`,
		Args: []any{appID}, Row: func(scan func(...any) error) error {
			e, err := scanEndpoint(scanFunc(scan))
			if err == nil {
				add(e)
			}
			return err
		}}
}

func (q *Queries) listWebhookEndpoints(ctx context.Context, appID string) ([]service.WebhookEndpointRecord, error) {
	var out []service.WebhookEndpointRecord
	err := q.runStmt(ctx, reading(endpointsTable), endpointsStmt(appID, func(e service.WebhookEndpointRecord) { out = append(out, e) }))
	return out, err
}

// UpdateWebhookEndpoint writes every field of an endpoint but its id, app and creation.
func (q *Queries) UpdateWebhookEndpoint(ctx context.Context, e *service.WebhookEndpointRecord) (err error) {
	defer wrap(&err, "update webhook endpoint %s", e.ID)
	return q.execOne(ctx, writing(endpointsTable), `UPDATE webhook_endpoints SET url = ?, event_types = ?, enabled = ?, description = ?,
		disabled_reason = ?, secret = ?, old_secret = ?, old_secret_until = ?, failing_since = ?
		WHERE app_id = ? AND id = ?`, e.URL, joinTypes(e.EventTypes), e.Enabled, e.Description, e.DisabledReason,
		e.SealedSecret, e.SealedOld, micros0(e.OldUntil), micros0(e.FailingSince), e.AppID, e.ID)
}

// DeleteWebhookEndpoint removes an endpoint; its deliveries and attempts go with it.
func (q *Queries) DeleteWebhookEndpoint(ctx context.Context, appID, id string) (err error) {
	defer wrap(&err, "delete webhook endpoint %s", id)
	for _, stmt := range []string{
		`DELETE FROM webhook_attempts WHERE endpoint_id = ?`,
		`DELETE FROM webhook_deliveries WHERE endpoint_id = ?`,
	} {
		if _, err := q.exec(ctx, stmt, id); err != nil {
			return err
		}
	}
	return q.execOne(ctx, writing(endpointsTable), `DELETE FROM webhook_endpoints WHERE app_id = ? AND id = ?`, appID, id)
}

// ClearWebhookFailures ends an endpoint's failure streak, if it has one.
func (q *Queries) ClearWebhookFailures(ctx context.Context, endpointID string) (err error) {
	defer wrap(&err, "clear webhook failures %s", endpointID)
	_, err = q.execTouching(ctx, writing(endpointsTable), `UPDATE webhook_endpoints SET failing_since = 0 WHERE id = ? AND failing_since <> 0`, endpointID)
	return err
}

// InsertWebhookDeliveries queues deliveries, pending, a few hundred per statement; in a write
// transaction it holds them.
func (q *Queries) InsertWebhookDeliveries(ctx context.Context, ds []service.WebhookDeliveryRecord) (err error) {
	defer wrap(&err, "queue %d webhook deliveries", len(ds))
	if q.job == nil {
		return insertNow(ctx, q, deliveriesTable, deliveryWriter, ds)
	}
	for _, d := range ds {
		q.job.st.held.deliveries.hold(d)
		q.wrote(deliveryWriter.insert)
	}
	return nil
}

var deliveryWriter = writer[service.WebhookDeliveryRecord]{
	insert: `INSERT INTO webhook_deliveries (app_id, event_id, endpoint_id, object_id, status, attempts, next_attempt, created)`,
	values: func(d *service.WebhookDeliveryRecord) []any {
		return []any{d.AppID, d.EventID, d.EndpointID, d.ObjectID, payouts.DeliveryPending, d.Attempts,
			sqldb.Micros(d.NextAttempt), sqldb.Micros(d.Created)}
	},
}

const deliveryColumns = `d.id, d.app_id, d.event_id, d.endpoint_id, d.object_id, d.status, d.attempts, d.next_attempt,
	d.created`

func scanDelivery(row interface{ Scan(...any) error }) (service.WebhookDeliveryRecord, error) {
	var d service.WebhookDeliveryRecord
	var next, created int64
	err := row.Scan(&d.ID, &d.AppID, &d.EventID, &d.EndpointID, &d.ObjectID, &d.Status, &d.Attempts, &next, &created)
	d.NextAttempt, d.Created = sqldb.FromMicros(next), sqldb.FromMicros(created)
	return d, err
}

// deliveryPending is the status of the rows of the partial indexes webhook_deliveries_due and
// webhook_deliveries_object, as the literal their WHERE names (see pendingPayouts).
const deliveryPending = `'` + string(payouts.DeliveryPending) + `'`

// ClaimDueWebhookDeliveries leases up to max due deliveries until until. A delivery waits while
// an older one of the same object to the same endpoint is pending, so each object's events
// arrive in order; deliveries to disabled endpoints wait until they are enabled again.
func (q *Queries) ClaimDueWebhookDeliveries(ctx context.Context, now, until time.Time, max int) (_ []service.WebhookDeliveryRecord, err error) {
	defer wrap(&err, "claim webhook deliveries")
	lock := ""
	if q.dialect == sqldb.Postgres {
		lock = " FOR UPDATE OF d SKIP LOCKED"
	}
	rows, err := q.query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled = ?
		WHERE d.status = `+deliveryPending+` AND d.next_attempt <= ?
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = d.endpoint_id
			AND o.object_id = d.object_id AND o.status = `+deliveryPending+` AND o.id < d.id)
		ORDER BY d.next_attempt, d.id LIMIT ?`+lock,
		true, sqldb.Micros(now), max)
	if err != nil {
		return nil, err
	}
	var out []service.WebhookDeliveryRecord
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, d := range out {
		if _, err := q.exec(ctx, `UPDATE webhook_deliveries SET next_attempt = ? WHERE id = ?`, sqldb.Micros(until), d.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FinishWebhookDelivery records an attempt and the delivery's new status and next attempt.
func (q *Queries) FinishWebhookDelivery(ctx context.Context, d *service.WebhookDeliveryRecord, a *service.WebhookAttemptRecord) (err error) {
	defer wrap(&err, "finish webhook delivery %d", d.ID)
	if _, err := q.exec(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt = ? WHERE id = ?`,
		d.Status, d.Attempts, sqldb.Micros(d.NextAttempt), d.ID); err != nil {
		return err
	}
	return q.queryRow(ctx, `INSERT INTO webhook_attempts (app_id, delivery_id, endpoint_id, event_id, event_type,
		status_code, latency_ms, response, outcome, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		a.AppID, a.DeliveryID, a.EndpointID, a.EventID, a.EventType, a.StatusCode, a.LatencyMS, a.Response,
		a.Delivery, sqldb.Micros(a.Created.Time)).Scan(&a.ID)
}

// RequeueFailedWebhookDeliveries queues again, due at at, every event whose delivery to the
// endpoint failed and that happened since since; it returns how many.
func (q *Queries) RequeueFailedWebhookDeliveries(ctx context.Context, endpointID string, since, at time.Time) (_ int, err error) {
	defer wrap(&err, "requeue failed webhook deliveries of %s", endpointID)
	res, err := q.exec(ctx, `INSERT INTO webhook_deliveries (app_id, event_id, endpoint_id, object_id, status, attempts,
		next_attempt, created) SELECT app_id, event_id, endpoint_id, object_id, ?, 0, ?, ? FROM webhook_deliveries
		WHERE endpoint_id = ? AND status = ? AND created >= ?`,
		payouts.DeliveryPending, sqldb.Micros(at), sqldb.Micros(at), endpointID, payouts.DeliveryFailed, sqldb.Micros(since))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// WebhookDeliveryPending reports whether the event's delivery to the endpoint is pending.
func (q *Queries) WebhookDeliveryPending(ctx context.Context, endpointID, eventID string) (pending bool, err error) {
	defer wrap(&err, "webhook delivery of %s to %s pending", eventID, endpointID)
	err = q.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ?
		AND status = `+deliveryPending+`)`, endpointID, eventID).Scan(&pending)
	return pending, err
}

// ListWebhookAttempts reads a page of an endpoint's attempts, newest first, optionally of one
// event. Cursors are attempt ids.
func (q *Queries) ListWebhookAttempts(ctx context.Context, appID, endpointID, eventID string, page payouts.Page) (_ []service.WebhookAttemptRecord, _ bool, err error) {
	defer wrap(&err, "list webhook attempts")
	l := listQuery{selectFrom: `SELECT id, app_id, delivery_id, endpoint_id, event_id, event_type, status_code,
		latency_ms, response, outcome, created FROM webhook_attempts`, order: "id",
		cursor: func(_ context.Context, id string) (int64, error) {
			n, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				return 0, service.ErrNoRecord
			}
			return n, nil
		}}
	l.filter("app_id = ?", appID)
	l.filter("endpoint_id = ?", endpointID)
	if eventID != "" {
		l.filter("event_id = ?", eventID)
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (service.WebhookAttemptRecord, error) {
		var a service.WebhookAttemptRecord
		var created int64
		err := r.Scan(&a.ID, &a.AppID, &a.DeliveryID, &a.EndpointID, &a.EventID, &a.EventType, &a.StatusCode,
			&a.LatencyMS, &a.Response, &a.Delivery, &created)
		a.Created = payouts.NewTime(sqldb.FromMicros(created))
		return a, err
	})
}

// CountPendingWebhookDeliveries counts the deliveries of every app not yet made.
func (q *Queries) CountPendingWebhookDeliveries(ctx context.Context) (n int, err error) {
	defer wrap(&err, "count pending webhook deliveries")
	err = q.queryRow(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE status = `+deliveryPending).Scan(&n)
	return n, err
}
