package store

import "testing"

func TestNamesTable(t *testing.T) {
	tables := []string{"transfers", "events"}
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"SELECT seq FROM transfers WHERE id = ?", true},
		{"INSERT INTO events (id) VALUES (?)", true},
		{"SELECT * FROM events", true},
		{"events", true},
		{"INSERT INTO transfer_events (app_id) VALUES (?)", false},
		{"SELECT count(*) FROM transfers_by_day", false},
		{"SELECT 1 FROM my_events, transfer_events WHERE x", false},
		{"SELECT 1 FROM transfer_events JOIN events ON true", true},
		{"SELECT id FROM users", false},
	} {
		t.Run(c.query, func(t *testing.T) {
			if got := namesTable(c.query, tables); got != c.want {
				t.Errorf("namesTable(%q) = %v, want %v", c.query, got, c.want)
			}
		})
	}
}
