package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/disburse/disburse/internal/sqldb"
)

// itemsPerInsert bounds the rows of one multi-row statement, well inside both engines' limits
// on bound parameters.
const itemsPerInsert = 200

// insertRows inserts n rows, itemsPerInsert per statement (sqldb.InsertRows), so that a chunk
// of a batch costs a round trip per few hundred rows instead of one per row. When scan is set,
// it reads each row the statement returns.
func (q *Queries) insertRows(ctx context.Context, t touching, insert string, n int, row func(i int) []any,
	tail string, scan func(*sql.Rows) error) error {
	return sqldb.InsertRows(q.dialect, n, itemsPerInsert, insert, row, tail, func(stmt string, args []any) error {
		if scan == nil {
			_, err := q.execTouching(ctx, t, stmt, args...)
			return err
		}
		return q.scanRows(ctx, t, stmt, args, scan)
	})
}

// scanRows runs query and calls scan for each row it returns.
func (q *Queries) scanRows(ctx context.Context, t touching, query string, args []any, scan func(*sql.Rows) error) error {
	return eachRow(q.queryTouching(ctx, t, query, args...))(scan)
}

// eachRow calls scan for each of rows, the answer of a query that failed with err or not.
func eachRow(rows *sql.Rows, err error) func(scan func(*sql.Rows) error) error {
	return func(scan func(*sql.Rows) error) error {
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
}

// runStmt runs s as the running job's own statement, declared as t: the batch view's reads
// (sqldb.Stmt, run before any job) and a job's read of the same rows share one statement.
func (q *Queries) runStmt(ctx context.Context, t touching, s sqldb.Stmt) error {
	return q.scanRows(ctx, t, s.Query, s.Args, func(r *sql.Rows) error { return s.Row(r.Scan) })
}

// writer turns rows of one type into the multi-row INSERTs of one table, a few hundred rows per
// statement: insert is the statement up to VALUES, tail what follows them, values a row's values
// in the insert's columns. When key is set each statement returns the rows' generated key (the
// table's seq) and each row is handed its own. A new column is a change of the row's type and of
// its writer's values, nothing else.
type writer[T any] struct {
	insert, tail string
	values       func(*T) []any
	key          func(*T, int64)
}

// stmts are the statements that insert rows, to run or to send in a pipeline. The keys of one
// statement's rows are drawn in the order of its VALUES on both engines, but RETURNING lists
// them in no promised order: they are sorted.
func (w writer[T]) stmts(d sqldb.Dialect, rows []T) ([]sqldb.Stmt, error) {
	tail := w.tail
	if w.key != nil {
		tail += " RETURNING seq"
	}
	var stmts []sqldb.Stmt
	for start := 0; start < len(rows); start += itemsPerInsert {
		end := min(start+itemsPerInsert, len(rows))
		chunk := rows[start:end]
		err := sqldb.InsertRows(d, len(chunk), itemsPerInsert, w.insert, func(i int) []any { return w.values(&chunk[i]) }, tail,
			func(query string, args []any) error {
				stmts = append(stmts, sqldb.Stmt{Query: query, Args: args})
				return nil
			})
		if err != nil {
			return nil, err
		}
		if w.key == nil {
			continue
		}
		// The chunk's statements return its keys, which are given in order when the last ran.
		var keys []int64
		for i := len(stmts) - 1; i >= 0 && stmts[i].Row == nil; i-- {
			stmts[i].Row = func(scan func(...any) error) error {
				var key int64
				err := scan(&key)
				keys = append(keys, key)
				return err
			}
		}
		stmts[len(stmts)-1].Done = func(int64) error {
			if len(keys) != len(chunk) {
				return fmt.Errorf("insert returned %d keys for %d rows", len(keys), len(chunk))
			}
			slices.Sort(keys)
			for i := range chunk {
				w.key(&chunk[i], keys[i])
			}
			return nil
		}
	}
	return stmts, nil
}

// insertNow inserts rows into the table t at once, outside any batch's held rows.
func insertNow[T any](ctx context.Context, q *Queries, t table, w writer[T], rows []T) error {
	stmts, err := w.stmts(q.dialect, rows)
	if err != nil {
		return err
	}
	return q.run(ctx, writing(t), stmts)
}

// run runs stmts one after another, each said to touch t.
func (q *Queries) run(ctx context.Context, t touching, stmts []sqldb.Stmt) error {
	for _, s := range stmts {
		var n int64
		if s.Row == nil {
			res, err := q.execTouching(ctx, t, s.Query, s.Args...)
			if err != nil {
				return err
			}
			if n, err = res.RowsAffected(); err != nil {
				return err
			}
		} else if err := q.scanRows(ctx, t, s.Query, s.Args, func(r *sql.Rows) error { n++; return s.Row(r.Scan) }); err != nil {
			return err
		}
		if s.Done != nil {
			if err := s.Done(n); err != nil {
				return err
			}
		}
	}
	return nil
}
