package service_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestSendsPerApp: codes sent for one app are limited, whichever user they go to, and another
// app's codes do not count.
func TestSendsPerApp(t *testing.T) {
	e := newEnv(t, 0)
	e.cfg.Limits = service.Limits{SendsPerApp: service.Rate{Max: 2, Per: time.Hour}}
	e.open(t)
	other, err := e.svc.CreateApp(e.ctx, "Other")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := e.svc.CreateUser(e.ctx, other.AppID, payouts.CreateUserRequest{FirstName: "O", LastName: "T",
		Email: "o@example.com", CountryCode: "1", PhoneNumber: "4155550199"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		app    string
		userID string
		want   string // error code, "" for sent
	}{
		{"first", e.app, e.user.ID, ""},
		{"second, another user", e.app, e.newUser(t, "b@example.com", "4155550101").ID, ""},
		{"third", e.app, e.newUser(t, "c@example.com", "4155550102").ID, payouts.ETooManyRequests},
		{"another app", other.AppID, theirs.ID, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.svc.SendVerificationToken(e.ctx, tt.app, tt.userID, payouts.SendVerificationTokenRequest{})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, tt.want)
		})
	}
}

// TestLimitsSharedAndKept: the limits count in the database, so two services on one database
// (two payoutd processes) share one count, and a service started again (a restart) keeps it until
// its window ends. Counted in each process's memory, the third code below went out.
func TestLimitsSharedAndKept(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 0)
		e.cfg.Limits = service.Limits{SendsPerApp: service.Rate{Max: 2, Per: time.Hour}}
		e.open(t)
		first := e.svc
		e.open(t) // a second process on the same database
		second := e.svc
		steps := []struct {
			name  string
			svc   func() *service.Service
			after time.Duration // the clock moves on this much first
			want  string        // error code, "" for sent
		}{
			{"first process", func() *service.Service { return first }, 0, ""},
			{"second process", func() *service.Service { return second }, 0, ""},
			{"first process again: the limit is shared", func() *service.Service { return first }, 0, payouts.ETooManyRequests},
			{"second process: refused too", func() *service.Service { return second }, 0, payouts.ETooManyRequests},
			{"after a restart: still refused", func() *service.Service { e.open(t); return e.svc }, time.Minute, payouts.ETooManyRequests},
			{"once the window ended", func() *service.Service { return e.svc }, time.Hour, ""},
		}
		for i, s := range steps {
			e.clock.Advance(s.after)
			u := e.newUser(t, fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("415555020%d", i))
			err := s.svc().SendVerificationToken(e.ctx, e.app, u.ID, payouts.SendVerificationTokenRequest{})
			if s.want == "" {
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				continue
			}
			if payouts.ErrorCode(err) != s.want {
				t.Fatalf("%s: error %v, want code %q", s.name, err, s.want)
			}
		}
	})
}
