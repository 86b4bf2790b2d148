package dashstore_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// engines opens a fresh store on each engine; every test below runs on both.
var engines = map[string]func(t testing.TB) string{
	"sqlite":   func(t testing.TB) string { return filepath.Join(t.TempDir(), "dashboard.db") },
	"postgres": func(t testing.TB) string { return pgtest.DSN(t) },
}

func forEachEngine(t *testing.T, test func(t *testing.T, s *dashstore.Store)) {
	t.Helper()
	for name, dsn := range engines {
		t.Run(name, func(t *testing.T) {
			s, err := dashstore.Open(context.Background(), dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			test(t, s)
		})
	}
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func mustCreate(t *testing.T, s *dashstore.Store, email string, role dashstore.Role) dashstore.Operator {
	t.Helper()
	op := dashstore.Operator{Email: email, Name: "Op " + email, Role: role, PasswordHash: "$argon2id$hash"}
	if err := s.CreateOperator(context.Background(), &op, t0); err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	return op
}

func wantFields(t *testing.T, err error, fields ...string) {
	t.Helper()
	e, ok := err.(*payouts.Error)
	if !ok {
		t.Fatalf("error = %v, want *payouts.Error with fields %v", err, fields)
	}
	for _, f := range fields {
		if e.Fields[f] == "" {
			t.Errorf("fields = %v, want a problem for %q", e.Fields, f)
		}
	}
}

func TestOperators(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		admin := mustCreate(t, s, "Admin@Example.com ", dashstore.RoleAdmin)
		if admin.Email != "admin@example.com" || admin.ID == "" {
			t.Fatalf("created %+v, want a lower-case email and an id", admin)
		}
		got, err := s.OperatorByEmail(ctx, "ADMIN@example.com")
		if err != nil || got.ID != admin.ID || got.Role != dashstore.RoleAdmin || !got.Created.Equal(t0) {
			t.Fatalf("OperatorByEmail = %+v, %v", got, err)
		}

		t.Run("validation", func(t *testing.T) {
			bad := dashstore.Operator{Email: "nope", Role: "boss"}
			wantFields(t, s.CreateOperator(ctx, &bad, t0), "email", "name", "role", "password")
			dup := dashstore.Operator{Email: "admin@example.com", Name: "Twin", Role: dashstore.RoleSupport, PasswordHash: "x"}
			wantFields(t, s.CreateOperator(ctx, &dup, t0), "email")
		})

		t.Run("not found", func(t *testing.T) {
			_, err := s.Operator(ctx, "6f1c1f39-0d5e-4f43-9d7e-000000000000")
			if payouts.ErrorCode(err) != payouts.ENotFound {
				t.Fatalf("err = %v, want not-found", err)
			}
		})

		t.Run("last admin is kept", func(t *testing.T) {
			support := dashstore.RoleSupport
			_, err := s.UpdateOperator(ctx, admin.ID, dashstore.OperatorUpdate{Role: &support}, t0)
			wantFields(t, err, "role")
			yes := true
			_, err = s.UpdateOperator(ctx, admin.ID, dashstore.OperatorUpdate{Disabled: &yes}, t0)
			wantFields(t, err, "disabled")

			second := mustCreate(t, s, "second@example.com", dashstore.RoleAdmin)
			op, err := s.UpdateOperator(ctx, admin.ID, dashstore.OperatorUpdate{Role: &support}, t0.Add(time.Minute))
			if err != nil || op.Role != support || !op.Updated.Equal(t0.Add(time.Minute)) {
				t.Fatalf("demote with another admin = %+v, %v", op, err)
			}
			_, err = s.UpdateOperator(ctx, second.ID, dashstore.OperatorUpdate{Disabled: &yes}, t0)
			wantFields(t, err, "disabled")
		})

		t.Run("disable and password reset revoke sessions", func(t *testing.T) {
			op := mustCreate(t, s, "ops@example.com", dashstore.RoleOperations)
			for _, upd := range []dashstore.OperatorUpdate{
				{Disabled: new(true)},
				{PasswordHash: new("$argon2id$new")},
			} {
				sess := dashstore.Session{ID: "sid-" + op.ID, OperatorID: op.ID, Data: []byte("{}"),
					Created: t0, LastSeen: t0, Expires: t0.Add(time.Hour)}
				if err := s.SaveSession(ctx, sess); err != nil {
					t.Fatal(err)
				}
				if _, err := s.UpdateOperator(ctx, op.ID, upd, t0); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Session(ctx, sess.ID); payouts.ErrorCode(err) != payouts.ENotFound {
					t.Fatalf("after %+v the session is still there (err %v)", upd, err)
				}
			}
		})

		ops, err := s.Operators(ctx)
		if err != nil || len(ops) != 3 || ops[0].Email != "admin@example.com" {
			t.Fatalf("Operators = %+v, %v", ops, err)
		}
		if n, err := s.CountOperators(ctx); err != nil || n != 3 {
			t.Fatalf("CountOperators = %d, %v", n, err)
		}
	})
}

func TestSessions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		op := mustCreate(t, s, "ops@example.com", dashstore.RoleOperations)
		anon := dashstore.Session{ID: "anonymous-id", Data: []byte(`{"csrf":"a"}`), Created: t0, LastSeen: t0, Expires: t0.Add(12 * time.Hour)}
		if err := s.SaveSession(ctx, anon); err != nil {
			t.Fatal(err)
		}
		got, err := s.Session(ctx, anon.ID)
		if err != nil || got.OperatorID != "" || string(got.Data) != `{"csrf":"a"}` || !got.Expires.Equal(anon.Expires) {
			t.Fatalf("Session = %+v, %v", got, err)
		}

		// Saving again replaces the values and the owner.
		anon.OperatorID, anon.Data = op.ID, []byte(`{"csrf":"b"}`)
		if err := s.SaveSession(ctx, anon); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchSession(ctx, anon.ID, t0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err = s.Session(ctx, anon.ID)
		if err != nil || got.OperatorID != op.ID || string(got.Data) != `{"csrf":"b"}` || !got.LastSeen.Equal(t0.Add(10*time.Minute)) {
			t.Fatalf("after save and touch: %+v, %v", got, err)
		}

		idle := dashstore.Session{ID: "idle-id", Data: []byte("{}"), Created: t0, LastSeen: t0, Expires: t0.Add(12 * time.Hour)}
		old := dashstore.Session{ID: "old-id", Data: []byte("{}"), Created: t0, LastSeen: t0.Add(time.Hour), Expires: t0.Add(time.Hour)}
		for _, sess := range []dashstore.Session{idle, old} {
			if err := s.SaveSession(ctx, sess); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.DeleteExpiredSessions(ctx, t0.Add(time.Hour), t0.Add(5*time.Minute))
		if err != nil || n != 2 {
			t.Fatalf("DeleteExpiredSessions = %d, %v; want the idle and the expired one", n, err)
		}
		if _, err := s.Session(ctx, anon.ID); err != nil {
			t.Fatalf("the live session went too: %v", err)
		}
		if err := s.DeleteSession(ctx, anon.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, anon.ID); payouts.ErrorCode(err) != payouts.ENotFound {
			t.Fatalf("after delete: %v", err)
		}
	})
}

func TestLoginFailures(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		for i := range 3 {
			if err := s.AddLoginFailure(ctx, t0.Add(time.Duration(i)*time.Minute), "ip:1.2.3.4", "account:a@example.com"); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			key   string
			since time.Time
			want  int
		}{
			{"ip:1.2.3.4", t0, 3},
			{"ip:1.2.3.4", t0.Add(90 * time.Second), 1},
			{"account:a@example.com", t0, 3},
			{"ip:5.6.7.8", t0, 0},
		} {
			n, last, err := s.LoginFailures(ctx, tc.key, tc.since)
			if err != nil || n != tc.want {
				t.Errorf("LoginFailures(%s, %v) = %d, %v; want %d", tc.key, tc.since, n, err, tc.want)
			}
			if wantLast := t0.Add(2 * time.Minute); n > 0 && !last.Equal(wantLast) {
				t.Errorf("LoginFailures(%s): latest %v, want %v", tc.key, last, wantLast)
			}
		}
		if err := s.DeleteLoginFailures(ctx, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, _, _ := s.LoginFailures(ctx, "ip:1.2.3.4", t0); n != 2 {
			t.Errorf("after delete: %d failures, want 2", n)
		}
	})
}

func TestAuditLog(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		for i := range 25 {
			e := dashstore.AuditEntry{Created: t0.Add(time.Duration(i) * time.Second), OperatorID: "op-a",
				OperatorEmail: "a@example.com", Action: "user.create", ObjectType: "user", ObjectID: "u1", IP: "127.0.0.1"}
			if i%5 == 0 {
				e.OperatorID, e.ObjectType, e.ObjectID, e.Action = "op-b", "operator", "o1", "operator.disable"
			}
			if err := s.AddAudit(ctx, &e); err != nil || e.ID == 0 {
				t.Fatalf("AddAudit = %d, %v", e.ID, err)
			}
		}
		if err := s.AddAudit(ctx, &dashstore.AuditEntry{}); payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Fatalf("empty entry: %v", err)
		}

		// Page through everything, ten at a time, newest first.
		var seen []int64
		f := dashstore.AuditFilter{Limit: 10}
		for page := 0; ; page++ {
			entries, more, err := s.AuditLog(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if len(seen) > 0 && e.ID >= seen[len(seen)-1] {
					t.Fatalf("ids not descending: %d after %d", e.ID, seen[len(seen)-1])
				}
				seen = append(seen, e.ID)
			}
			if !more {
				break
			}
			f.Before = entries[len(entries)-1].ID
		}
		if len(seen) != 25 {
			t.Fatalf("paged through %d entries, want 25", len(seen))
		}

		for _, tc := range []struct {
			name string
			f    dashstore.AuditFilter
			want int
		}{
			{"by operator", dashstore.AuditFilter{OperatorID: "op-b", Limit: 100}, 5},
			{"by object", dashstore.AuditFilter{ObjectType: "user", ObjectID: "u1", Limit: 100}, 20},
			{"by type", dashstore.AuditFilter{ObjectType: "operator", Limit: 100}, 5},
			{"by action", dashstore.AuditFilter{Action: "operator.disable", Limit: 100}, 5},
			{"from a time on", dashstore.AuditFilter{CreatedFrom: t0.Add(20 * time.Second), Limit: 100}, 5},
			{"before a time", dashstore.AuditFilter{CreatedTo: t0.Add(20 * time.Second), Limit: 100}, 20},
			{"between, by action", dashstore.AuditFilter{Action: "user.create", CreatedFrom: t0.Add(5 * time.Second),
				CreatedTo: t0.Add(15 * time.Second), Limit: 100}, 8},
		} {
			t.Run(tc.name, func(t *testing.T) {
				entries, more, err := s.AuditLog(ctx, tc.f)
				if err != nil || more || len(entries) != tc.want {
					t.Fatalf("got %d entries (more %v), %v; want %d", len(entries), more, err, tc.want)
				}
			})
		}
		if _, _, err := s.AuditLog(ctx, dashstore.AuditFilter{Limit: 101}); payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Fatalf("limit 101: %v", err)
		}
	})
}

func TestServiceCredentials(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		sealKey, otherKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
		if _, err := s.ServiceCredentials(ctx, "embedded", sealKey); payouts.ErrorCode(err) != payouts.ENotFound {
			t.Fatalf("before save: %v", err)
		}
		for _, key := range []string{"key-1", "key-2"} {
			c := payouts.Credentials{AppID: "app", Name: "embedded", ClientID: "cid", APIKey: key}
			if err := s.SaveServiceCredentials(ctx, c, sealKey, t0); err != nil {
				t.Fatal(err)
			}
			got, err := s.ServiceCredentials(ctx, "embedded", sealKey)
			if err != nil || got != c {
				t.Fatalf("ServiceCredentials = %+v, %v; want %+v", got, err, c)
			}
		}
		if got, err := s.ServiceCredentials(ctx, "embedded", otherKey); err == nil {
			t.Fatalf("opened with another key: %+v", got)
		}
	})
}

func TestMigrateTwice(t *testing.T) {
	for name, dsn := range engines {
		t.Run(name, func(t *testing.T) {
			d := dsn(t)
			for range 2 {
				s, err := dashstore.Open(context.Background(), d)
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
		})
	}
}
