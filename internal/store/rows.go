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

// rowSet are rows to insert into one table; setKey[i], when set, receives the key the database
// gives row i. Of rows held (held.go), the first written are in the database already.
type rowSet struct {
	values  [][]any
	setKey  []func(int64)
	written int
}

func (r *rowSet) add(values []any, setKey func(int64)) {
	r.values = append(r.values, values)
	r.setKey = append(r.setKey, setKey)
}

func (r *rowSet) truncate(n int) { r.values, r.setKey = r.values[:n], r.setKey[:n] }

// unwritten are the rows not written yet.
func (r *rowSet) unwritten() *rowSet {
	return &rowSet{values: r.values[r.written:], setKey: r.setKey[r.written:]}
}

// insertRowSet inserts rows into the table t, a few hundred per statement; when returnsKey, each
// statement returns the rows' generated key (the table's seq) and each row is handed its own. The keys of one statement's rows are drawn in
// the order of its VALUES on both engines, but RETURNING lists them in no promised order: they
// are sorted.
func (q *Queries) insertRowSet(ctx context.Context, t table, insert, tail string, returnsKey bool, rows *rowSet) error {
	stmts, err := q.insertStmts(insert, tail, returnsKey, rows)
	if err != nil {
		return err
	}
	return q.run(ctx, writing(t), stmts)
}

// insertStmts are the statements of insertRowSet, to run or to send in a pipeline.
func (q *Queries) insertStmts(insert, tail string, returnsKey bool, rows *rowSet) ([]sqldb.Stmt, error) {
	if returnsKey {
		tail += " RETURNING seq"
	}
	var stmts []sqldb.Stmt
	for start := 0; start < len(rows.values); start += itemsPerInsert {
		end := min(start+itemsPerInsert, len(rows.values))
		err := sqldb.InsertRows(q.dialect, end-start, itemsPerInsert, insert, func(i int) []any { return rows.values[start+i] }, tail,
			func(query string, args []any) error {
				stmts = append(stmts, sqldb.Stmt{Query: query, Args: args})
				return nil
			})
		if err != nil {
			return nil, err
		}
		if !returnsKey {
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
			if len(keys) != end-start {
				return fmt.Errorf("insert returned %d keys for %d rows", len(keys), end-start)
			}
			slices.Sort(keys)
			for i, set := range rows.setKey[start:end] {
				if set != nil {
					set(keys[i])
				}
			}
			return nil
		}
	}
	return stmts, nil
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
