package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/sqlrows"
	"github.com/disburse/disburse/payouts"
)

// queryPlan is the plan of query on the store's engine, one line per row, explained on one
// connection. On PostgreSQL sequential scans are switched off for it: the tables are empty, and
// the question is which index a query can use, not whether a scan of nothing is cheaper. On
// SQLite a read comes first: EXPLAIN reads no table, so it would not notice a schema changed
// since the connection last read one, and a pooled connection opened by the background
// checkpoints while the migrations ran would explain without the newest indexes.
func queryPlan(t *testing.T, st *store.Store, query string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	db := st.DB()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	explain, first := "EXPLAIN QUERY PLAN "+query, `SELECT count(*) FROM sqlite_master`
	if db.Dialect == sqldb.Postgres {
		explain, first = "EXPLAIN "+query, `SET enable_seqscan = off`
	}
	if _, err := conn.ExecContext(ctx, first); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, db.Rebind(explain), args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := sqlrows.Values(rows)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for _, vals := range lines {
		fmt.Fprintln(&plan, vals...)
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

// claimDeliveries is the query of ClaimDueWebhookDeliveries.
const claimDeliveries = `SELECT d.id FROM webhook_deliveries d
	JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled = ?
	WHERE d.status = 'pending' AND d.next_attempt <= ?
	AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = d.endpoint_id
		AND o.object_id = d.object_id AND o.status = 'pending' AND o.id < d.id)
	ORDER BY d.next_attempt, d.id LIMIT ?`

// TestIndexDietPlans: the queries whose index migration 0012 dropped, narrowed or moved still
// read an index, in its order where they order.
func TestIndexDietPlans(t *testing.T) {
	tests := []struct {
		name  string
		query string
		args  []any
		index []string // the plan must read one of these
	}{
		{
			// keysetOfCreated: was transfers_created, a prefix of transfers_summary.
			name:  "creation seek",
			query: `SELECT seq FROM transfers WHERE app_id = ? AND created >= ? ORDER BY created ASC LIMIT 1`,
			args:  []any{"app", 0},
			index: []string{"transfers_summary"},
		},
		{
			name: "summary sample",
			query: `SELECT user_id, type, status, amount, created FROM transfers WHERE app_id = ? AND created >= ?
				ORDER BY created DESC LIMIT 10000`,
			args:  []any{"app", 0},
			index: []string{"transfers_summary"},
		},
		{
			// ClaimDuePayouts: the partial index holds pending payouts only.
			name: "settlement scan",
			query: `SELECT id FROM transfers WHERE status = 'pending' AND type = 'payout' AND settle_at <= ?
				AND lease_until <= ? ORDER BY settle_at LIMIT ?`,
			args:  []any{1, 1, 16},
			index: []string{"transfers_settle"},
		},
		{
			name:  "worker backlog",
			query: `SELECT MIN(settle_at) FROM transfers WHERE status = 'pending' AND type = 'payout' AND settle_at <= ?`,
			args:  []any{1},
			index: []string{"transfers_settle"},
		},
		{
			// ListPayoutMethods of one user; those of several users sort their few methods
			// (TestListPayoutMethodsOfUsers).
			name: "methods of a user",
			query: `SELECT m.id FROM payout_methods m JOIN users u ON u.id = m.user_id
				WHERE m.app_id = ? AND m.user_id IN (?) ORDER BY m.seq DESC`,
			args:  []any{"app", "u1"},
			index: []string{"payout_methods_user"},
		},
		{
			// SQLite keeps idempotency keys WITHOUT ROWID: the table is the key's B-tree.
			name:  "idempotency key",
			query: `SELECT operation, request_hash FROM idempotency_keys WHERE app_id = ? AND key = ?`,
			args:  []any{"app", "k"},
			index: []string{"PRIMARY KEY", "idempotency_keys_pkey"},
		},
		{
			name:  "idempotency purge",
			query: `DELETE FROM idempotency_keys WHERE created < ?`,
			args:  []any{1},
			index: []string{"idempotency_keys_created"},
		},
		{
			// ClaimDueWebhookDeliveries: both partial indexes hold pending deliveries only.
			name:  "webhook claim, due order",
			query: claimDeliveries,
			args:  []any{true, 1, 10},
			index: []string{"webhook_deliveries_due"},
		},
		{
			name:  "webhook claim, in-order check",
			query: claimDeliveries,
			args:  []any{true, 1, 10},
			index: []string{"webhook_deliveries_object"},
		},
		{
			// FindAccount in a write transaction: an app's own accounts, not its users' wallets.
			name:  "an app's own accounts",
			query: store.AppAccounts,
			args:  []any{"app"},
			index: []string{"(app_id=? AND kind=?)", "Index Cond: ((app_id = 'app'::text) AND (kind = ANY"},
		},
		{
			name:  "webhook queue",
			query: `SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'`,
			index: []string{"webhook_deliveries_due", "webhook_deliveries_object"}, // both partial
		},
	}
	engines(t, func(t *testing.T, st *store.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := queryPlan(t, st, tt.query, tt.args...)
				uses := slices.ContainsFunc(tt.index, func(index string) bool { return strings.Contains(p, index) })
				if !uses || sorts(p) {
					t.Fatalf("plan does not read any of %v in order:\n%s", tt.index, p)
				}
			})
		}
	})
}

// TestShortIDPlans: LookUpIDs finds a short id by its key in the table's (app_id, ShortIDKey)
// index (migration 0019), not by reading the app's rows: the query's expression is the index's.
func TestShortIDPlans(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		for _, table := range []string{"users", "payout_links", "transfers", "flows"} {
			t.Run(table, func(t *testing.T) {
				p := queryPlan(t, st, `SELECT id FROM `+table+` WHERE app_id = ? AND `+store.ShortIDKeySQL+` = ? ORDER BY id LIMIT ?`,
					"app", "01e9a65d", 10)
				// The index must be searched by the key, not only by the app with the key as a filter.
				byKey := strings.Contains(p, table+"_short_id (app_id=? AND <expr>=?)")
				if st.DB().Dialect == sqldb.Postgres {
					byKey = strings.Contains(p, "Index Scan using "+table+"_short_id") &&
						strings.Contains(p, "substr(id, 29, 2)) = ") && !strings.Contains(p, "Filter:")
				}
				if !byKey {
					t.Fatalf("the short id lookup does not search %s_short_id by its key:\n%s", table, p)
				}
			})
		}
	})
}

// TestShortIDKeySQL: the short-id indexes' expression is service.ShortIDKey of the id's short id,
// for ids of every kind the service has made.
func TestShortIDKeySQL(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		db := st.DB()
		for _, id := range []string{
			"0199b5a2-7c1e-7d3a-9f10-2b8f5d6a9e10", // a UUIDv7 made before the count: random
			"019ac1f2-3b4d-7e5f-8a6b-7c8da3012345", // count 0x543210, random digits a3
			"3f2504e0-4f89-41d3-9a0c-0305e82c3301", // an unguessable UUIDv4
		} {
			t.Run(id, func(t *testing.T) {
				var key string
				err := db.QueryRowContext(context.Background(), db.Rebind(`SELECT `+store.ShortIDKeySQL+` FROM (SELECT CAST(? AS TEXT) AS id) AS row`), id).Scan(&key)
				if err != nil {
					t.Fatal(err)
				}
				if want := service.ShortIDKey(payouts.ShortID(id)); key != want {
					t.Errorf("key in SQL %q, want %q", key, want)
				}
			})
		}
	})
}

// TestByIDPlans: the reads by id of users (one, or a batch's read ahead), transfers, payout links
// and payout requests, and the updates of transfers and payout requests, find the row through the
// unique id index even
// before the table's first ANALYZE. With app_id (or deleted_at IS NULL) in their WHERE, PostgreSQL could not tell
// the id index from an (app_id, ...) or a partial one by statistics, and read every row of the
// app to find one.
func TestByIDPlans(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		for n := range 300 {
			newUser(t, st, appID, n, fmt.Sprintf("user%d@example.com", n))
			tr, _ := heldTransfer(appID, 0, 0, n)
			if err := st.CreateTransfer(ctx, tr); err != nil {
				t.Fatal(err)
			}
		}
		db := st.DB()
		for n := range 300 {
			for _, insert := range []string{
				`INSERT INTO payout_links (id, app_id, amount, status, delivery_method, search, created, updated)
					VALUES (?, ?, 100, 'delivered', 'link', '', 0, 0)`,
				`INSERT INTO payout_requests (id, app_id, amount, status, created, updated)
					VALUES (?, ?, 100, 'approved', 0, 0)`,
			} {
				if _, err := db.ExecContext(ctx, db.Rebind(insert), userID(n), appID); err != nil {
					t.Fatal(err)
				}
			}
		}
		tr, _ := heldTransfer(appID, 0, 0, 150)
		for _, c := range []struct {
			table, query, id string
			args             []any // an update's, after the id
		}{
			{"users", `SELECT u.seq FROM users u WHERE u.id = ?`, userID(150), nil},
			{"users", `SELECT u.seq FROM users u WHERE u.id IN (?, ?, ?, ?)`, userID(150), nil},
			{"transfers", `SELECT seq FROM transfers WHERE id = ?`, tr.ID, nil},
			{"transfers", `UPDATE transfers SET status = ? WHERE id = ? AND status = ?`, tr.ID, []any{"pending"}},
			{"transfers", `UPDATE transfers SET rail_state = ? WHERE id = ? AND status = ? AND rail_state = ? AND attempts = ?`,
				tr.ID, []any{"pending", "submitting", 1}},
			{"payout_links", `SELECT seq FROM payout_links WHERE id = ?`, userID(150), nil},
			{"payout_requests", `SELECT seq FROM payout_requests WHERE id = ?`, userID(150), nil},
			{"payout_requests", `UPDATE payout_requests SET status = ? WHERE id = ? AND status = ?`, userID(150), []any{"pending"}},
		} {
			t.Run(c.query, func(t *testing.T) {
				args := []any{c.id}
				for len(args) < strings.Count(c.query, "?") && !strings.HasPrefix(c.query, "UPDATE") {
					args = append(args, userID(len(args)*7))
				}
				if strings.HasPrefix(c.query, "UPDATE") {
					args = append([]any{"completed", c.id}, c.args...)
				}
				p := queryPlan(t, st, c.query, args...)
				if !strings.Contains(p, c.table+"_id_key") && !strings.Contains(p, "sqlite_autoindex_"+c.table+"_1") {
					t.Fatalf("the read by id does not use the id index:\n%s", p)
				}
			})
		}
	})
}

// TestTransferHistoriesPlan: the statuses of a page of transfers (an export reads a thousand at
// once) are found through the transfers' id index and the events' transfer index, never by
// walking the app's transfers: with app_id in its WHERE, SQLite took an (app_id, ...) index and
// read every transfer of the app for each page.
func TestTransferHistoriesPlan(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		ids := make([]string, 4)
		for n := range 300 {
			tr, _ := heldTransfer(appID, 0, 0, n)
			if err := st.CreateTransfer(ctx, tr); err != nil {
				t.Fatal(err)
			}
			if n < len(ids) {
				ids[n] = tr.ID
			}
		}
		query, args := store.TransferHistoriesSQL(ids)
		p := queryPlan(t, st, query, args...)
		for _, index := range [][]string{{"sqlite_autoindex_transfers_1", "transfers_id_key"}, {"transfer_events_transfer"}} {
			if !slices.ContainsFunc(index, func(name string) bool { return strings.Contains(p, name) }) {
				t.Errorf("the histories are not read through %s:\n%s", index[0], p)
			}
		}
		if strings.Contains(p, "transfers_short_id") || strings.Contains(p, "transfers_app") {
			t.Errorf("the histories walk the app's transfers:\n%s", p)
		}
	})
}
