package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/disburse/disburse/internal/sanctions"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
)

// CurrentSanctionsList reads the list loaded last, without its entries.
func (q *Queries) CurrentSanctionsList(ctx context.Context) (_ *service.SanctionsListRecord, err error) {
	defer wrap(&err, "read the current sanctions list")
	var l service.SanctionsListRecord
	var loaded int64
	err = q.queryRowTouching(ctx, readingOthers, `SELECT id, version, source, entry_count, loaded FROM sanctions_lists
		ORDER BY id DESC LIMIT 1`).Scan(&l.ID, &l.Version, &l.Source, &l.EntryCount, &loaded)
	if err != nil {
		return nil, noRecord(err)
	}
	l.Loaded = sqldb.FromMicros(loaded)
	return &l, nil
}

// SanctionsEntries reads the entries of a load; ErrNoRecord when they were dropped.
func (q *Queries) SanctionsEntries(ctx context.Context, listID int64) (_ []sanctions.Entry, err error) {
	defer wrap(&err, "read the entries of sanctions list %d", listID)
	var data []byte
	err = q.queryRowTouching(ctx, readingOthers, `SELECT entries FROM sanctions_lists WHERE id = ? AND entries IS NOT NULL`,
		listID).Scan(&data)
	if err != nil {
		return nil, noRecord(err)
	}
	var entries []sanctions.Entry
	return entries, json.Unmarshal(data, &entries)
}

// SaveSanctionsList stores a load with its entries and drops those of the older loads, which
// nothing screens against any more.
func (q *Queries) SaveSanctionsList(ctx context.Context, l *service.SanctionsListRecord) (err error) {
	defer wrap(&err, "save sanctions list %s", l.Version)
	data, err := json.Marshal(l.Entries)
	if err != nil {
		return err
	}
	if _, err := q.execTouching(ctx, writingOthers, `UPDATE sanctions_lists SET entries = NULL WHERE entries IS NOT NULL`); err != nil {
		return err
	}
	return q.queryRowTouching(ctx, writingOthers, `INSERT INTO sanctions_lists (version, source, entry_count, entries, loaded)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, l.Version, l.Source, l.EntryCount, data, sqldb.Micros(l.Loaded)).Scan(&l.ID)
}

const sanctionsHitColumns = `app_id, user_id, list_id, entry_uid, list, entry_name, matched_name, programs, score, created,
	released_by, release_reason, released_at`

// SanctionsHits reads the user's hits against a load, best score first.
func (q *Queries) SanctionsHits(ctx context.Context, appID, userID string, listID int64) (_ []service.SanctionsHitRecord, err error) {
	defer wrap(&err, "read the sanctions hits of user %s", userID)
	rows, err := q.queryTouching(ctx, readingOthers, `SELECT `+sanctionsHitColumns+` FROM sanctions_hits
		WHERE app_id = ? AND user_id = ? AND list_id = ? ORDER BY score DESC, entry_uid`, appID, userID, listID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.SanctionsHitRecord
	for rows.Next() {
		var h service.SanctionsHitRecord
		var programs string
		var created int64
		var released sql.NullInt64
		if err := rows.Scan(&h.AppID, &h.UserID, &h.ListID, &h.EntryUID, &h.List, &h.EntryName, &h.MatchedName, &programs,
			&h.Score, &created, &h.ReleasedBy, &h.ReleaseReason, &released); err != nil {
			return nil, err
		}
		h.Created = sqldb.FromMicros(created)
		if programs != "" {
			h.Programs = strings.Split(programs, ";")
		}
		if released.Valid {
			at := sqldb.FromMicros(released.Int64)
			h.ReleasedAt = &at
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// SaveSanctionsHits stores hits not stored yet; a stored one, and its release, stays as it is.
func (q *Queries) SaveSanctionsHits(ctx context.Context, hits []service.SanctionsHitRecord) (err error) {
	defer wrap(&err, "save %d sanctions hits", len(hits))
	for _, h := range hits {
		if _, err := q.execTouching(ctx, writingOthers, `INSERT INTO sanctions_hits (app_id, user_id, list_id, entry_uid, list,
			entry_name, matched_name, programs, score, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (app_id, user_id, list_id, entry_uid) DO NOTHING`,
			h.AppID, h.UserID, h.ListID, h.EntryUID, h.List, h.EntryName, h.MatchedName, strings.Join(h.Programs, ";"),
			h.Score, sqldb.Micros(h.Created)); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseSanctionsHit records who released a stored hit, why and when.
func (q *Queries) ReleaseSanctionsHit(ctx context.Context, h *service.SanctionsHitRecord) (err error) {
	defer wrap(&err, "release sanctions hit %s of user %s", h.EntryUID, h.UserID)
	if h.ReleasedAt == nil {
		return errors.New("no release time")
	}
	return q.execOne(ctx, writingOthers, `UPDATE sanctions_hits SET released_by = ?, release_reason = ?, released_at = ?
		WHERE app_id = ? AND user_id = ? AND list_id = ? AND entry_uid = ?`,
		h.ReleasedBy, h.ReleaseReason, sqldb.Micros(*h.ReleasedAt), h.AppID, h.UserID, h.ListID, h.EntryUID)
}

// ScreeningPayees reads every user of every app that is not deleted: app, id and names.
func (q *Queries) ScreeningPayees(ctx context.Context) (_ []service.UserRecord, err error) {
	defer wrap(&err, "read the payees to screen")
	rows, err := q.queryTouching(ctx, reading(usersTable), `SELECT app_id, id, first_name, last_name FROM users
		WHERE deleted_at IS NULL ORDER BY app_id, seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.UserRecord
	for rows.Next() {
		var u service.UserRecord
		if err := rows.Scan(&u.AppID, &u.ID, &u.FirstName, &u.LastName); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
