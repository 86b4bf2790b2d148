package store

import (
	"context"
	"database/sql"
	"strings"
)

// itemsPerInsert bounds the rows of one multi-row statement, well inside both engines' limits
// on bound parameters.
const itemsPerInsert = 200

// insertRows inserts n rows, itemsPerInsert per statement, so that a chunk of a batch costs a
// round trip per few hundred rows instead of one per row. insert is the statement up to VALUES;
// row(i) returns the values of row i; tail follows the VALUES (ON CONFLICT, RETURNING). When scan
// is set, it reads each row the statement returns.
func (q *Queries) insertRows(ctx context.Context, insert string, n int, row func(i int) []any,
	tail string, scan func(*sql.Rows) error) error {
	for start := 0; start < n; start += itemsPerInsert {
		end := min(start+itemsPerInsert, n)
		var values strings.Builder
		var args []any
		for i := start; i < end; i++ {
			vals := row(i)
			if i > start {
				values.WriteString(", ")
			}
			values.WriteString("(" + strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ") + ")")
			args = append(args, vals...)
		}
		stmt := insert + " VALUES " + values.String() + " " + tail
		if scan == nil {
			if _, err := q.exec(ctx, stmt, args...); err != nil {
				return err
			}
			continue
		}
		if err := q.scanRows(ctx, stmt, args, scan); err != nil {
			return err
		}
	}
	return nil
}

// scanRows runs query and calls scan for each row it returns.
func (q *Queries) scanRows(ctx context.Context, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
