package sqldb

import "database/sql"

// Page reads the rows of a query that asked for one more than limit: at most limit of them,
// each read by scan, and whether there were more. It closes rows.
func Page[T any](rows *sql.Rows, limit int, scan func(*sql.Rows) (T, error)) ([]T, bool, error) {
	out, err := All(rows, scan)
	if err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// All reads every row, each by scan, and closes rows. No rows is an empty slice, not nil, which
// a list encodes as [] rather than null.
func All[T any](rows *sql.Rows, scan func(*sql.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
