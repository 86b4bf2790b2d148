package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
)

// Prune deletes old events, deliveries and attempts that are done with, and keeps whatever a
// delivery still pending needs, whatever its age, and everything newer than the cutoff.
func TestPruneKeepsWhatIsStillToDeliver(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "Pruned")
		old, recent := t0, t0.Add(200*24*time.Hour)
		cutoff := t0.Add(100 * 24 * time.Hour)
		db := st.DB()
		exec := func(query string, args ...any) {
			t.Helper()
			if err := db.InTx(ctx, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, db.Rebind(query), args...)
				return err
			}); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		exec(`INSERT INTO webhook_endpoints (id, app_id, url, enabled, secret, created) VALUES (?, ?, ?, ?, ?, ?)`,
			"ep1", appID, "https://hooks.example.com", true, []byte("secret"), sqldb.Micros(old))
		event := func(id string, at time.Time) {
			exec(`INSERT INTO events (id, app_id, type, object_id, data, created) VALUES (?, ?, 'user.created', 'obj', '{}', ?)`,
				id, appID, sqldb.Micros(at))
		}
		var deliveries int64
		delivery := func(eventID, status string, at time.Time) int64 {
			deliveries++
			exec(`INSERT INTO webhook_deliveries (id, app_id, event_id, endpoint_id, object_id, status, next_attempt, created)
				VALUES (?, ?, ?, 'ep1', 'obj', ?, ?, ?)`, deliveries, appID, eventID, status, sqldb.Micros(at), sqldb.Micros(at))
			return deliveries
		}
		var attempts int64
		attempt := func(deliveryID int64, eventID string, at time.Time) {
			attempts++
			exec(`INSERT INTO webhook_attempts (id, app_id, delivery_id, endpoint_id, event_id, event_type, status_code,
				latency_ms, response, outcome, created) VALUES (?, ?, ?, 'ep1', ?, 'user.created', 200, 5, '', 'succeeded', ?)`,
				attempts, appID, deliveryID, eventID, sqldb.Micros(at))
		}

		// In the order time makes them, as ids grow with time.
		event("e-delivered", old)
		attempt(delivery("e-delivered", "succeeded", old), "e-delivered", old)
		event("e-pending", old)
		attempt(delivery("e-pending", "pending", old), "e-pending", old)
		event("e-none", old)
		event("e-retried", old)
		retried := delivery("e-retried", "failed", old)
		event("e-recent", recent)
		attempt(delivery("e-recent", "succeeded", recent), "e-recent", recent)
		attempt(retried, "e-retried", recent) // an old delivery tried again lately

		got, err := st.Prune(ctx, cutoff)
		if err != nil {
			t.Fatal(err)
		}
		if want := (store.Pruned{Events: 2, Deliveries: 1, Attempts: 1}); got != want {
			t.Errorf("pruned %+v, want %+v", got, want)
		}
		ids := func(query string) string {
			t.Helper()
			rows, err := db.QueryContext(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
			return fmt.Sprint(out)
		}
		for _, tt := range []struct{ query, want string }{
			{"SELECT id FROM events ORDER BY seq", "[e-pending e-retried e-recent]"},
			{"SELECT event_id FROM webhook_deliveries ORDER BY id", "[e-pending e-retried e-recent]"},
			{"SELECT event_id FROM webhook_attempts ORDER BY id", "[e-pending e-recent e-retried]"},
		} {
			if got := ids(tt.query); got != tt.want {
				t.Errorf("%s: %s, want %s", tt.query, got, tt.want)
			}
		}

		again, err := st.Prune(ctx, cutoff)
		if err != nil || again != (store.Pruned{}) {
			t.Errorf("a second prune: %+v, %v; want nothing", again, err)
		}
	})
}

// Prune deletes outbox messages older than the cutoff once sent, delivered or given up, and keeps
// a message still queued whatever its age, and every message newer than the cutoff.
func TestPruneOutbox(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "Outbox")
		old, recent := t0, t0.Add(200*24*time.Hour)
		cutoff := t0.Add(100 * 24 * time.Hour)
		db := st.DB()
		message := func(recipient, status string, at time.Time) {
			t.Helper()
			if err := db.InTx(ctx, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO outbound_messages (app_id, purpose, channel, recipient,
					subject, body, html, status, next_attempt, created, updated)
					VALUES (?, 'payout_link', 'email', ?, '', '', '', ?, ?, ?, ?)`),
					appID, recipient, status, sqldb.Micros(at), sqldb.Micros(at), sqldb.Micros(at))
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		// In the order time makes them, as ids grow with time.
		message("old-sent@example.com", "sent", old)
		message("old-queued@example.com", "queued", old)
		message("old-delivered@example.com", "delivered", old)
		message("old-failed@example.com", "failed", old)
		message("recent-sent@example.com", "sent", recent)
		message("recent-queued@example.com", "queued", recent)

		got, err := st.Prune(ctx, cutoff)
		if err != nil {
			t.Fatal(err)
		}
		if want := (store.Pruned{Messages: 3}); got != want {
			t.Errorf("pruned %+v, want %+v", got, want)
		}
		rows, err := db.QueryContext(ctx, "SELECT recipient FROM outbound_messages ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var left []string
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				t.Fatal(err)
			}
			left = append(left, r)
		}
		if got, want := fmt.Sprint(left), "[old-queued@example.com recent-sent@example.com recent-queued@example.com]"; got != want {
			t.Errorf("left %s, want %s", got, want)
		}
		if again, err := st.Prune(ctx, cutoff); err != nil || again != (store.Pruned{}) {
			t.Errorf("a second prune: %+v, %v; want nothing", again, err)
		}
	})
}
