package dashstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// The payee index is the dashboard's copy of the service's users, for a backend that cannot
// search them (the public Dots API lists users newest first and nothing more). The handlers fill
// it from the list (newest first down to the first user it already listed, then on from the
// oldest it has read until the list ends) and put any user they re-read; a search of it is exact
// only once the index is Complete.

// PayeeIndex is how far the index has read the service's list of users.
type PayeeIndex struct {
	Payees int // users in the index
	// Complete is true once the list was read to its oldest user: every user the service had
	// then is in the index.
	Complete bool
	// ResumeAfter is the oldest user read from the list, where reading older users goes on;
	// empty before the first page.
	ResumeAfter string
	// Listed is true once any page of the list was read, so that a reading from the newest user
	// stops at the first it meets that the index has listed.
	Listed bool
	// Synced is when the list was last read down from its newest user; zero never.
	Synced time.Time
}

// PayeeIndexState reads how far the index has read the list.
func (s *Store) PayeeIndexState(ctx context.Context) (PayeeIndex, error) {
	var p PayeeIndex
	var synced int64
	var listed int
	err := s.db.QueryRowContext(ctx, `SELECT complete, resume_after, synced_at,
		(SELECT COUNT(*) FROM payees), (SELECT COUNT(*) FROM payees WHERE listed)
		FROM payee_index WHERE id = 1`).Scan(&p.Complete, &p.ResumeAfter, &synced, &p.Payees, &listed)
	if err != nil {
		return p, err
	}
	p.Listed = listed > 0
	if synced != 0 {
		p.Synced = sqldb.FromMicros(synced)
	}
	return p, nil
}

// ListedPayees reports which of ids the index has read from the list.
func (s *Store) ListedPayees(ctx context.Context, ids []string) (map[string]bool, error) {
	listed := map[string]bool{}
	if len(ids) == 0 {
		return listed, nil
	}
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT id FROM payees WHERE listed AND id IN (`+placeholders(len(ids))+`)`), anys(ids)...)
	if err != nil {
		return nil, err
	}
	found, err := sqldb.All(rows, func(r *sql.Rows) (id string, err error) { return id, r.Scan(&id) })
	for _, id := range found {
		listed[id] = true
	}
	return listed, err
}

// AddNewestPayees puts users read from the top of the list, newest first, above every user
// listed so far. end is true when the list ended within them: then the index holds the whole
// list. On an index that had listed no one, the oldest of them is where reading goes on.
func (s *Store) AddNewestPayees(ctx context.Context, users []payouts.User, end bool, now time.Time) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		var top, listed int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0), COUNT(*) FROM payees WHERE listed`).Scan(&top, &listed); err != nil {
			return err
		}
		for i, u := range users {
			if err := s.putPayee(ctx, tx, u, top+int64(len(users)-i), true, now); err != nil {
				return err
			}
		}
		q, args := `UPDATE payee_index SET synced_at = ?`, []any{sqldb.Micros(now)}
		switch {
		case end:
			q += `, complete = TRUE`
		case listed == 0 && len(users) > 0:
			q, args = q+`, resume_after = ?`, append(args, users[len(users)-1].ID)
		}
		_, err := tx.ExecContext(ctx, s.db.Rebind(q+` WHERE id = 1`), args...)
		return err
	})
}

// AddOlderPayees puts a page of the list read after ResumeAfter, newest first, below every user
// listed so far; end is true when it was the list's last page.
func (s *Store) AddOlderPayees(ctx context.Context, users []payouts.User, end bool, now time.Time) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		var bottom int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MIN(seq), 1) FROM payees WHERE listed`).Scan(&bottom); err != nil {
			return err
		}
		for i, u := range users {
			if err := s.putPayee(ctx, tx, u, bottom-1-int64(i), true, now); err != nil {
				return err
			}
		}
		q, args := `UPDATE payee_index SET complete = ?`, []any{end}
		if len(users) > 0 {
			q, args = q+`, resume_after = ?`, append(args, users[len(users)-1].ID)
		}
		_, err := tx.ExecContext(ctx, s.db.Rebind(q+` WHERE id = 1`), args...)
		return err
	})
}

// PutPayee puts a user the dashboard re-read alone: its place in the list is kept when listed.
func (s *Store) PutPayee(ctx context.Context, u payouts.User, now time.Time) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error { return s.putPayee(ctx, tx, u, 0, false, now) })
}

// putPayee writes u; a listed write gives it seq and marks it listed, an unlisted one keeps both.
func (s *Store) putPayee(ctx context.Context, tx *sql.Tx, u payouts.User, seq int64, listed bool, now time.Time) error {
	data, err := json.Marshal(u)
	if err != nil {
		return err
	}
	keep := `seq = excluded.seq, listed = excluded.listed,`
	if !listed {
		keep = ``
	}
	_, err = tx.ExecContext(ctx, s.db.Rebind(`INSERT INTO payees (id, seq, listed, search, email, data, read_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET `+keep+`
		search = excluded.search, email = excluded.email, data = excluded.data, read_at = excluded.read_at`),
		u.ID, seq, listed, payouts.UserSearchText(u), strings.ToLower(u.Email), string(data), sqldb.Micros(now))
	return err
}

// DeletePayee takes out a user the service no longer has.
func (s *Store) DeletePayee(ctx context.Context, id string) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM payees WHERE id = ?`), id)
		return err
	})
}

// PayeeMatches is a search of the index: the first users that match, in the list's order
// (newest first), and how many match in all.
type PayeeMatches struct {
	Users []payouts.User
	Total int
}

// SearchPayees finds the users whose search text holds every term (payouts.MatchesSearch, done
// by the database), at most limit of them, newest first, with the count of all that match.
func (s *Store) SearchPayees(ctx context.Context, terms []payouts.SearchTerm, limit int) (PayeeMatches, error) {
	var where []string
	var args []any
	for _, t := range terms {
		clause, arg := `search LIKE ? ESCAPE '\'`, []any{likeContains(t.Text)}
		if t.Digits != "" {
			clause, arg = `(`+clause+` OR search LIKE ? ESCAPE '\')`, append(arg, likeContains(t.Digits))
		}
		where, args = append(where, clause), append(args, arg...)
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	var m PayeeMatches
	if err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM payees`+cond), args...).Scan(&m.Total); err != nil {
		return m, err
	}
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT data FROM payees`+cond+` ORDER BY seq DESC, id DESC LIMIT ?`),
		append(args, limit)...)
	if err != nil {
		return m, err
	}
	m.Users, err = sqldb.All(rows, scanPayee)
	return m, err
}

// PayeesByEmail finds the users whose email is email, whatever its case.
func (s *Store) PayeesByEmail(ctx context.Context, email string) ([]payouts.User, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT data FROM payees WHERE email = ? ORDER BY seq DESC, id DESC`),
		strings.ToLower(strings.TrimSpace(email)))
	if err != nil {
		return nil, err
	}
	return sqldb.All(rows, scanPayee)
}

// PayeesByID reads the users of ids the index holds.
func (s *Store) PayeesByID(ctx context.Context, ids []string) (map[string]payouts.User, error) {
	found := map[string]payouts.User{}
	for start := 0; start < len(ids); start += 500 {
		part := ids[start:min(start+500, len(ids))]
		rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT data FROM payees WHERE id IN (`+placeholders(len(part))+`)`), anys(part)...)
		if err != nil {
			return nil, err
		}
		users, err := sqldb.All(rows, scanPayee)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			found[u.ID] = u
		}
	}
	return found, nil
}

func scanPayee(r *sql.Rows) (payouts.User, error) {
	var data string
	var u payouts.User
	if err := r.Scan(&data); err != nil {
		return u, err
	}
	return u, json.Unmarshal([]byte(data), &u)
}

// likeContains is a LIKE pattern that matches text anywhere, its wildcards escaped.
func likeContains(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(text) + "%"
}
