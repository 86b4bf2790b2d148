package sqldb

import "database/sql"

// Page reads the rows of a query that asked for one more than limit: at most limit of them,
// each read by scan, and whether there were more. It closes rows.
func Page[T any](rows *sql.Rows, limit int, scan func(*sql.Rows) (T, error)) ([]T, bool, error) {
	defer rows.Close()
	out := make([]T, 0, limit+1)
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}
