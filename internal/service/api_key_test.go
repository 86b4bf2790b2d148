package service_test

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestAPIKeyRotation: an app's first key, a key that replaces it (both work for the overlap, then
// only the new one), a revoked key refused at once, and the request's own key never revoked or
// replaced through itself; on both engines.
func TestAPIKeyRotation(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 0)
		cred, err := e.svc.CreateApp(e.ctx, "Beta")
		if err != nil {
			t.Fatal(err)
		}
		app := cred.AppID
		keyID := func(key string) string {
			t.Helper()
			p, err := e.svc.Authenticate(e.ctx, cred.ClientID, key, "")
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			return p.KeyID
		}
		works := func(key string) bool {
			_, err := e.svc.Authenticate(e.ctx, cred.ClientID, key, "")
			if err != nil && payouts.ErrorCode(err) != payouts.EUnauthorized {
				t.Fatalf("Authenticate: %v", err)
			}
			return err == nil
		}
		first := keyID(cred.APIKey)
		list, err := e.svc.APIKeys(e.ctx, app, app, first)
		if err != nil || len(list.Data) != 1 {
			t.Fatalf("APIKeys = %+v, %v; want the first key", list, err)
		}
		if k := list.Data[0]; k.Name != "first key" || k.Status != payouts.APIKeyActive || !k.Current ||
			k.Last4 != cred.APIKey[len(cred.APIKey)-4:] || k.LastUsedAt == nil || !k.LastUsedAt.Equal(e.clock.Now()) {
			t.Fatalf("first key = %+v", k)
		}

		// A rotation made with another key of the app: the dashboard's, say.
		other, err := e.svc.CreateAPIKey(e.ctx, app, app, first, payouts.CreateAPIKeyRequest{Name: "ops", CreatedBy: "ada"})
		if err != nil || other.Key == "" || other.Status != payouts.APIKeyActive {
			t.Fatalf("CreateAPIKey = %+v, %v", other, err)
		}
		refusals := []struct {
			name    string
			current string
			req     payouts.CreateAPIKeyRequest
		}{
			{"no name", other.ID, payouts.CreateAPIKeyRequest{Replaces: first}},
			{"replaces an unknown key", other.ID, payouts.CreateAPIKeyRequest{Name: "new", Replaces: "nope"}},
			{"replaces the request's own key", first, payouts.CreateAPIKeyRequest{Name: "new", Replaces: first}},
		}
		for _, r := range refusals {
			t.Run(r.name, func(t *testing.T) {
				if _, err := e.svc.CreateAPIKey(e.ctx, app, app, r.current, r.req); payouts.ErrorCode(err) != payouts.EInvalidInput {
					t.Fatalf("CreateAPIKey = %v; want invalid input", err)
				}
			})
		}
		if _, err := e.svc.RevokeAPIKey(e.ctx, app, app, first, first); payouts.ErrorCode(err) != payouts.EForbidden {
			t.Fatalf("revoking the request's own key = %v; want forbidden", err)
		}
		if _, err := e.svc.CreateAPIKey(e.ctx, e.app, app, first, payouts.CreateAPIKeyRequest{Name: "x"}); payouts.ErrorCode(err) != payouts.ENotFound {
			t.Fatalf("another app's keys = %v; want not found", err)
		}

		second, err := e.svc.CreateAPIKey(e.ctx, app, app, other.ID, payouts.CreateAPIKeyRequest{Name: "second", Replaces: first})
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name    string
			advance time.Duration
			revoke  string
			works   map[string]bool // key: whether it authenticates
		}{
			{"the overlap: old and new work", 0, "", map[string]bool{cred.APIKey: true, second.Key: true, other.Key: true}},
			{"a moment before its end, the old one works", payouts.APIKeyOverlap - time.Second, "",
				map[string]bool{cred.APIKey: true, second.Key: true}},
			{"at its end it is refused, from memory too", time.Second, "", map[string]bool{cred.APIKey: false, second.Key: true, other.Key: true}},
			{"a revoked key is refused at once", 0, other.ID, map[string]bool{other.Key: false, second.Key: true}},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				e.clock.Advance(s.advance)
				if s.revoke != "" {
					if _, err := e.svc.RevokeAPIKey(e.ctx, app, app, s.revoke, second.ID); err != nil {
						t.Fatal(err)
					}
				}
				for key, want := range s.works {
					if got := works(key); got != want {
						t.Errorf("key ...%s authenticates = %v, want %v", key[len(key)-4:], got, want)
					}
				}
			})
		}
		list, err = e.svc.APIKeys(e.ctx, app, app, second.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]payouts.APIKeyStatus{first: payouts.APIKeyExpired, other.ID: payouts.APIKeyRevoked, second.ID: payouts.APIKeyActive}
		for _, k := range list.Data {
			if k.Status != want[k.ID] || k.Current != (k.ID == second.ID) {
				t.Errorf("key %s: status %s, current %v; want %s", k.Name, k.Status, k.Current, want[k.ID])
			}
		}
	})
}

// TestAPIKeyMigration runs migration 0030 over apps as stored before it, one key hash on the
// app's row: each key becomes the app's "first key" and keeps authenticating. On both engines.
func TestAPIKeyMigration(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 0)
		cred, err := e.svc.CreateApp(e.ctx, "Beta")
		if err != nil {
			t.Fatal(err)
		}
		blob := "BLOB"
		if strings.HasPrefix(dsn, "postgres") {
			blob = "BYTEA"
		}
		hash := sha256.Sum256([]byte(cred.APIKey))
		db := e.st.DB()
		for _, s := range []struct {
			stmt string
			args []any
		}{
			{`ALTER TABLE apps ADD COLUMN key_hash ` + blob, nil},
			{`UPDATE apps SET key_hash = (SELECT key_hash FROM api_keys WHERE api_keys.app_id = apps.id)`, nil},
			{`DROP TABLE api_keys`, nil},
			{`DELETE FROM schema_migrations WHERE name = ?`, []any{"0030_api_keys.sql"}},
		} {
			if _, err := db.ExecContext(e.ctx, db.Rebind(s.stmt), s.args...); err != nil {
				t.Fatalf("%s: %v", s.stmt, err)
			}
		}
		var stored []byte
		if err := db.QueryRowContext(e.ctx, db.Rebind(`SELECT key_hash FROM apps WHERE id = ?`), cred.AppID).Scan(&stored); err != nil ||
			string(stored) != string(hash[:]) {
			t.Fatalf("the key as stored before: %x, %v", stored, err)
		}
		e.open(t) // the migration runs, over the key as stored before it
		p, err := e.svc.Authenticate(e.ctx, cred.ClientID, cred.APIKey, "")
		if err != nil || p.AppID != cred.AppID {
			t.Fatalf("Authenticate after the migration = %+v, %v", p, err)
		}
		list, err := e.svc.APIKeys(e.ctx, cred.AppID, cred.AppID, p.KeyID)
		if err != nil || len(list.Data) != 1 || list.Data[0].Name != "first key" || !list.Data[0].Current ||
			list.Data[0].Status != payouts.APIKeyActive {
			t.Fatalf("keys after the migration = %+v, %v", list, err)
		}
	})
}
