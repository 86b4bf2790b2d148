package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
)

// queryPlan is the plan of query on the store's engine, one line per row. On PostgreSQL
// sequential scans are switched off: the tables are empty, and the question is which index a
// query can use, not whether a scan of nothing is cheaper.
func queryPlan(t *testing.T, st *store.Store, query string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	db := st.DB()
	explain := "EXPLAIN QUERY PLAN " + query
	if db.Dialect == sqldb.Postgres {
		if _, err := db.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
			t.Fatal(err)
		}
		explain = "EXPLAIN " + query
	}
	rows, err := db.QueryContext(ctx, db.Rebind(explain), args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan strings.Builder
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&plan, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan.String()
}

// sorts reports whether a plan sorts rows instead of reading them in an index's order.
func sorts(plan string) bool {
	return strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Sort")
}

// TestKeysetPlans shows that list pages read an index in keyset order, so a deep page costs what
// the first does.
func TestKeysetPlans(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		p := queryPlan(t, st, `SELECT id FROM transfers WHERE app_id = ? AND seq < ? ORDER BY seq DESC LIMIT 11`, "app", 1000)
		t.Logf("plan:\n%s", p)
		if !strings.Contains(p, "transfers_app") || sorts(p) {
			t.Fatalf("the page query does not walk the (app_id, seq) index in order:\n%s", p)
		}
	})
}

// TestIndexDietPlans: the queries whose index migration 0012 dropped, narrowed or moved still
// read an index, in its order where they order.
func TestIndexDietPlans(t *testing.T) {
	tests := []struct {
		name  string
		query string
		args  []any
		index map[sqldb.Dialect]string // the index each engine must use
	}{
		{
			// keysetOfCreated: was transfers_created, a prefix of transfers_summary.
			name:  "creation seek",
			query: `SELECT seq FROM transfers WHERE app_id = ? AND created >= ? ORDER BY created ASC LIMIT 1`,
			args:  []any{"app", 0},
			index: map[sqldb.Dialect]string{sqldb.SQLite: "transfers_summary", sqldb.Postgres: "transfers_summary"},
		},
		{
			name: "summary sample",
			query: `SELECT user_id, type, status, amount, created FROM transfers WHERE app_id = ? AND created >= ?
				ORDER BY created DESC LIMIT 10000`,
			args:  []any{"app", 0},
			index: map[sqldb.Dialect]string{sqldb.SQLite: "transfers_summary", sqldb.Postgres: "transfers_summary"},
		},
		{
			// ClaimDuePayouts: the partial index holds pending payouts only.
			name: "settlement scan",
			query: `SELECT id FROM transfers WHERE status = 'pending' AND type = 'payout' AND settle_at <= ?
				AND lease_until <= ? ORDER BY settle_at LIMIT ?`,
			args:  []any{1, 1, 16},
			index: map[sqldb.Dialect]string{sqldb.SQLite: "transfers_settle", sqldb.Postgres: "transfers_settle"},
		},
		{
			name:  "worker backlog",
			query: `SELECT MIN(settle_at) FROM transfers WHERE status = 'pending' AND type = 'payout' AND settle_at <= ?`,
			args:  []any{1},
			index: map[sqldb.Dialect]string{sqldb.SQLite: "transfers_settle", sqldb.Postgres: "transfers_settle"},
		},
		{
			// SQLite keeps idempotency keys WITHOUT ROWID: the table is the key's B-tree.
			name:  "idempotency key",
			query: `SELECT operation, request_hash FROM idempotency_keys WHERE app_id = ? AND key = ?`,
			args:  []any{"app", "k"},
			index: map[sqldb.Dialect]string{sqldb.SQLite: "PRIMARY KEY", sqldb.Postgres: "idempotency_keys_pkey"},
		},
		{
			name:  "idempotency purge",
			query: `DELETE FROM idempotency_keys WHERE created < ?`,
			args:  []any{1},
			index: map[sqldb.Dialect]string{sqldb.SQLite: "idempotency_keys_created", sqldb.Postgres: "idempotency_keys_created"},
		},
	}
	engines(t, func(t *testing.T, st *store.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := queryPlan(t, st, tt.query, tt.args...)
				if want := tt.index[st.DB().Dialect]; !strings.Contains(p, want) || sorts(p) {
					t.Fatalf("plan does not read %s in order:\n%s", want, p)
				}
			})
		}
	})
}
