package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/testutil/pgtest"
)

// TestPipeline: a batch's statements sent to PostgreSQL together are answered in order, each
// row to its statement's Row and its count to Done; the first failure is the answer, no later
// statement's Done runs, and the batch commits nothing.
func TestPipeline(t *testing.T) {
	db := open(t, pgtest.DSN(t))
	createCounter(t, db)
	insert := func(ids ...int) sqldb.Stmt {
		marks, args := "", []any{}
		for i, id := range ids {
			if i > 0 {
				marks += ", "
			}
			marks += "(?, 0)"
			args = append(args, id)
		}
		return sqldb.Stmt{Query: `INSERT INTO counter (id, n) VALUES ` + marks + ` RETURNING id`, Args: args}
	}
	errStop := errors.New("stop")
	tests := []struct {
		name     string
		failAt   int // the statement whose Done fails; -1 for none
		dupAt    int // the statement that inserts an id taken before it; -1 for none
		wantRows int
		wantLog  string
	}{
		{"all answered in order", -1, -1, 5, "row 1 row 2 done 0:2 row 3 done 1:1 done 2:0 row 4 row 5 done 3:2 "},
		{"a Done that fails stops the answers", 1, -1, 0, "row 1 row 2 done 0:2 row 3 done 1:1 "},
		{"a statement that fails stops the answers", -1, 3, 0, "row 1 row 2 done 0:2 row 3 done 1:1 done 2:0 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := db.Exec(`DELETE FROM counter`); err != nil {
				t.Fatal(err)
			}
			stmts := []sqldb.Stmt{insert(1, 2), insert(3), {Query: `UPDATE counter SET n = n + 1 WHERE id = ?`, Args: []any{99}}, insert(4, 5)}
			if tt.dupAt >= 0 {
				stmts[tt.dupAt] = insert(4, 1)
			}
			var log string
			for i := range stmts {
				if stmts[i].Query[0] == 'I' {
					stmts[i].Row = func(scan func(...any) error) error {
						var id int
						err := scan(&id)
						log += fmt.Sprintf("row %d ", id)
						return err
					}
				}
				stmts[i].Done = func(n int64) error {
					log += fmt.Sprintf("done %d:%d ", i, n)
					if i == tt.failAt {
						return errStop
					}
					return nil
				}
			}
			err := db.InBatch(context.Background(), nil, func(_ *sql.Tx, b *sqldb.Batch) error {
				b.BeforeCommit(func(ctx context.Context, _ *sql.Tx) error { return b.Pipeline(ctx, stmts) })
				return nil
			})
			if wantErr := tt.failAt >= 0 || tt.dupAt >= 0; (err != nil) != wantErr {
				t.Fatalf("InBatch = %v, want an error: %v", err, wantErr)
			}
			if tt.failAt >= 0 && !errors.Is(err, errStop) {
				t.Errorf("InBatch = %v, want Done's error", err)
			}
			if log != tt.wantLog {
				t.Errorf("answers %q, want %q", log, tt.wantLog)
			}
			if n := count(t, db); n != tt.wantRows {
				t.Errorf("%d rows committed, want %d", n, tt.wantRows)
			}
		})
	}
}
