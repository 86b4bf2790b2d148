package store_test

import (
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/store"
)

// TestListFilterPlans: the dashboard's queue and search ask for exactly what they show, so each
// of those queries must read an index on its filter, in the list's order, not the app's rows.
func TestListFilterPlans(t *testing.T) {
	tests := []struct {
		name, query, index string
		args               []any
	}{
		{"payout requests in a status, counted", `SELECT COUNT(*) FROM payout_requests WHERE app_id = ? AND status = ?`,
			"payout_requests_status", []any{"app", "created"}},
		{"payout requests in a status, oldest first", `SELECT id FROM payout_requests WHERE app_id = ? AND status = ?
			ORDER BY seq ASC LIMIT 6`, "payout_requests_status", []any{"app", "created"}},
		{"payout requests in a status, oldest first after a cursor", `SELECT id FROM payout_requests WHERE app_id = ?
			AND status = ? AND seq > ? ORDER BY seq ASC LIMIT 6`, "payout_requests_status", []any{"app", "created", 100}},
		{"flows of a user", `SELECT id FROM flows WHERE app_id = ? AND user_id = ? ORDER BY seq DESC LIMIT 11`,
			"flows_user", []any{"app", "user"}},
		{"flows of a user, next page", `SELECT id FROM flows WHERE app_id = ? AND user_id = ? AND seq < ?
			ORDER BY seq DESC LIMIT 11`, "flows_user", []any{"app", "user", 100}},
		{"payout links of an amount", `SELECT id FROM payout_links WHERE app_id = ? AND amount = ?
			ORDER BY seq DESC LIMIT 11`, "payout_links_amount", []any{"app", 2500}},
	}
	engines(t, func(t *testing.T, st *store.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := queryPlan(t, st, tt.query, tt.args...)
				if !strings.Contains(p, tt.index) || sorts(p) {
					t.Fatalf("plan does not read %s in order:\n%s", tt.index, p)
				}
			})
		}
	})
}
