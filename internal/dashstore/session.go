package dashstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// Session is an operator's (or, before login, a visitor's) server-side session. Its ID is the
// random value of the session cookie; only a SHA-256 of it is stored, so a copy of the database
// does not hand out live sessions.
type Session struct {
	ID         string
	OperatorID string // "" until someone signs in
	Data       []byte // the session's values, encoded by the caller
	Created    time.Time
	LastSeen   time.Time
	Expires    time.Time // absolute expiry, whatever the activity
}

func hashSessionID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// SaveSession inserts or replaces the session with sess.ID.
func (s *Store) SaveSession(ctx context.Context, sess Session) error {
	var operatorID any
	if sess.OperatorID != "" {
		operatorID = sess.OperatorID
	}
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO sessions
		(id_hash, operator_id, data, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id_hash) DO UPDATE SET operator_id = excluded.operator_id, data = excluded.data,
			last_seen_at = excluded.last_seen_at, expires_at = excluded.expires_at`),
		hashSessionID(sess.ID), operatorID, string(sess.Data), sqldb.Micros(sess.Created),
		sqldb.Micros(sess.LastSeen), sqldb.Micros(sess.Expires))
	return err
}

// Session returns the session with the given id, whether or not it has expired: expiry is the
// caller's policy.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	var sess Session
	var operatorID sql.NullString
	var data string
	var created, lastSeen, expires int64
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT operator_id, data, created_at, last_seen_at, expires_at
		FROM sessions WHERE id_hash = ?`), hashSessionID(id)).
		Scan(&operatorID, &data, &created, &lastSeen, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return sess, payouts.Errorf(payouts.ENotFound, "session not found")
	}
	if err != nil {
		return sess, err
	}
	sess.ID, sess.OperatorID, sess.Data = id, operatorID.String, []byte(data)
	sess.Created, sess.LastSeen, sess.Expires = sqldb.FromMicros(created), sqldb.FromMicros(lastSeen), sqldb.FromMicros(expires)
	return sess, nil
}

// TouchSession records activity on a session, which keeps it from expiring while idle.
func (s *Store) TouchSession(ctx context.Context, id string, at time.Time) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?`),
		sqldb.Micros(at), hashSessionID(id))
	return err
}

// DeleteSession revokes a session; deleting one that does not exist is not an error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM sessions WHERE id_hash = ?`), hashSessionID(id))
	return err
}

// DeleteExpiredSessions removes sessions past their absolute expiry or idle since before
// idleSince, and returns how many it removed.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now, idleSince time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at < ?`),
		sqldb.Micros(now), sqldb.Micros(idleSince))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
