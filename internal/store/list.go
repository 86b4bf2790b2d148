package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// listQuery is a keyset-paginated list: rows of one app, newest first (or oldest first), ordered
// by an indexed, increasing integer column. A page costs the same at any depth: the cursor becomes a bound on
// that column, never an OFFSET.
type listQuery struct {
	selectFrom string   // SELECT ... FROM ... (with any joins)
	where      []string // conditions, ANDed
	args       []any
	order      string // the keyset column, for example "t.seq"
	// oldestFirst reverses the list: starting_after then reads newer rows, ending_before older.
	oldestFirst bool
	// cursor finds the keyset value of the object a cursor names, within the same app.
	cursor func(ctx context.Context, id string) (int64, error)
}

func (l *listQuery) filter(cond string, args ...any) {
	l.where = append(l.where, cond)
	l.args = append(l.args, args...)
}

// run reads one page. scan reads one row. It returns the rows and whether more lie beyond the
// page in the direction of travel.
func run[T any](ctx context.Context, q *Queries, l listQuery, p payouts.Page, scan func(*sql.Rows) (T, error)) ([]T, bool, error) {
	// A page after a cursor reads on in the list's order; a page before one reads the other way
	// from it and is turned round.
	descending, backwards := !l.oldestFirst, false
	if p.StartingAfter != "" || p.EndingBefore != "" {
		id := p.StartingAfter
		if id == "" {
			id, descending, backwards = p.EndingBefore, !descending, true
		}
		bound, err := l.cursor(ctx, id)
		if err != nil {
			return nil, false, err
		}
		op := " > ?"
		if descending {
			op = " < ?"
		}
		l.filter(l.order+op, bound)
	}
	dir := "ASC"
	if descending {
		dir = "DESC"
	}
	var b strings.Builder
	b.WriteString(l.selectFrom)
	if len(l.where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(l.where, " AND "))
	}
	b.WriteString(" ORDER BY " + l.order + " " + dir + " LIMIT " + strconv.Itoa(p.Limit+1))
	rows, err := q.query(ctx, b.String(), l.args...)
	if err != nil {
		return nil, false, err
	}
	out, more, err := sqldb.Page(rows, p.Limit, scan)
	if err != nil {
		return nil, false, err
	}
	if backwards {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, more, nil
}

// seqCursor finds the seq of the row with this id in table, for the app.
func (q *Queries) seqCursor(table, appID string) func(context.Context, string) (int64, error) {
	return q.seqCursorOf(table, "app_id", appID)
}

// seqCursorOf finds the seq of the row with this id in table, among the rows whose owner column
// holds owner.
func (q *Queries) seqCursorOf(table, ownerColumn, owner string) func(context.Context, string) (int64, error) {
	return func(ctx context.Context, id string) (int64, error) {
		if !payouts.ValidID(id) {
			return 0, service.ErrNoRecord
		}
		var seq int64
		err := q.queryRow(ctx, `SELECT seq FROM `+table+` WHERE `+ownerColumn+` = ? AND id = ?`, owner, id).Scan(&seq)
		return seq, noRecord(err)
	}
}

// search narrows the list to the rows whose search column (payouts.UserSearchText,
// payouts.PayoutLinkSearchText) holds every term of the search q, in any order, a phone number
// by its digits too: payouts.SearchTerms is the one reading of a search.
func (l *listQuery) search(column, q string) {
	like := column + ` LIKE ? ESCAPE '\'`
	for _, t := range payouts.SearchTerms(q) {
		if t.Digits == "" {
			l.filter(like, likePattern(t.Text))
		} else {
			l.filter("("+like+" OR "+like+")", likePattern(t.Text), likePattern(t.Digits))
		}
	}
}

// likePattern makes a case-insensitive substring pattern of s, with LIKE's wildcards escaped.
func likePattern(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
	return "%" + s + "%"
}
