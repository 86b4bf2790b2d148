package service_test

import (
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
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
		Email: "o@example.com", CountryCode: "1", PhoneNumber: "5550199"})
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
		{"second, another user", e.app, e.newUser(t, "b@example.com", "5550101").ID, ""},
		{"third", e.app, e.newUser(t, "c@example.com", "5550102").ID, payouts.ETooManyRequests},
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
