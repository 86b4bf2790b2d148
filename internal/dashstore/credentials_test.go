package dashstore

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

// storedAPIKey is the api_key column as it is on disk.
func storedAPIKey(t *testing.T, s *Store, name string) string {
	t.Helper()
	var v string
	if err := s.db.QueryRowContext(context.Background(), s.db.Rebind(`SELECT api_key FROM service_credentials WHERE name = ?`), name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The API key never reaches the database in clear; one saved in clear before sealing existed
// is read as it was and sealed in place.
func TestServiceCredentialsSealedAtRest(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "dashboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := bytes.Repeat([]byte{9}, 32)
	c := payouts.Credentials{AppID: "app_1", Name: "disburse", ClientID: "ck_1", APIKey: "sk_live_secret"}

	t.Run("saved sealed", func(t *testing.T) {
		if err := s.SaveServiceCredentials(ctx, c, key, time.Now()); err != nil {
			t.Fatal(err)
		}
		if v := storedAPIKey(t, s, c.Name); strings.Contains(v, c.APIKey) || !strings.HasPrefix(v, sealedPrefix) {
			t.Errorf("stored api_key %q, want it sealed", v)
		}
	})
	t.Run("clear value migrated", func(t *testing.T) {
		if _, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE service_credentials SET api_key = ? WHERE name = ?`), c.APIKey, c.Name); err != nil {
			t.Fatal(err)
		}
		got, err := s.ServiceCredentials(ctx, c.Name, key)
		if err != nil || got != c {
			t.Fatalf("ServiceCredentials = %+v, %v; want %+v", got, err, c)
		}
		if v := storedAPIKey(t, s, c.Name); strings.Contains(v, c.APIKey) {
			t.Errorf("after reading, stored api_key is still clear: %q", v)
		}
		if got, err := s.ServiceCredentials(ctx, c.Name, key); err != nil || got != c {
			t.Fatalf("after migration: %+v, %v; want %+v", got, err, c)
		}
	})
}
