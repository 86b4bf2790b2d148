package store

import (
	"context"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

const appColumns = `id, name, client_id, key_hash, created`

func scanApp(row interface{ Scan(...any) error }) (*service.AppRecord, error) {
	var a service.AppRecord
	var created int64
	if err := row.Scan(&a.ID, &a.Name, &a.ClientID, &a.KeyHash, &created); err != nil {
		return nil, noRecord(err)
	}
	a.Created = sqldb.FromMicros(created)
	return &a, nil
}

// CreateApp inserts an app.
func (q *Queries) CreateApp(ctx context.Context, a *service.AppRecord) (err error) {
	defer wrap(&err, "create app %s", a.ID)
	_, err = q.exec(ctx, `INSERT INTO apps (`+appColumns+`) VALUES (?, ?, ?, ?, ?)`,
		a.ID, a.Name, a.ClientID, a.KeyHash, sqldb.Micros(a.Created))
	return err
}

// GetApp reads an app by id.
func (q *Queries) GetApp(ctx context.Context, id string) (_ *service.AppRecord, err error) {
	defer wrap(&err, "get app %s", id)
	return scanApp(q.queryRow(ctx, `SELECT `+appColumns+` FROM apps WHERE id = ?`, id))
}

// AppByClientID reads the app with this API client id.
func (q *Queries) AppByClientID(ctx context.Context, clientID string) (_ *service.AppRecord, err error) {
	defer wrap(&err, "app by client id %s", clientID)
	return scanApp(q.queryRow(ctx, `SELECT `+appColumns+` FROM apps WHERE client_id = ?`, clientID))
}

// ListApps reads every app, oldest first.
func (q *Queries) ListApps(ctx context.Context) (_ []service.AppRecord, err error) {
	defer wrap(&err, "list apps")
	rows, err := q.query(ctx, `SELECT `+appColumns+` FROM apps ORDER BY created, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.AppRecord
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}
