package servicetest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

func TestStart(t *testing.T) {
	env := servicetest.Start(t)

	resp := env.Do(t, "GET", "/v2/apps/"+env.AppID, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET app: %d %s", resp.Status, resp.Body)
	}
	var app payouts.App
	resp.Decode(t, &app)
	if app.ID != env.AppID {
		t.Errorf("app id = %q, want %q", app.ID, env.AppID)
	}

	other := env.CreateApp(t, "Other")
	resp = env.DoAs(t, other, "GET", "/v2/apps/"+env.AppID, nil)
	if resp.Status != http.StatusNotFound {
		t.Errorf("another app's GET app: %d %s, want 404", resp.Status, resp.Body)
	}
	resp = env.DoAs(t, other, "GET", "/v2/apps/"+other.AppID, nil)
	if resp.Status != http.StatusOK {
		t.Errorf("second app's own GET app: %d %s", resp.Status, resp.Body)
	}
}

func TestServiceUsesClock(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	env := servicetest.Start(t, servicetest.WithClock(testclock.New(start)))
	resp := env.Do(t, "POST", "/v2/users", map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com",
		"country_code": "1", "phone_number": "4155550100",
	})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create user: %d %s", resp.Status, resp.Body)
	}
	var u payouts.User
	resp.Decode(t, &u)
	if !u.Created.Equal(start) {
		t.Errorf("user created %v, want the test clock's %v", u.Created, start)
	}
}

func TestStartPostgres(t *testing.T) {
	env := servicetest.Start(t, servicetest.WithPostgres())
	resp := env.Do(t, "GET", "/v2/apps/"+env.AppID, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET app on PostgreSQL: %d %s", resp.Status, resp.Body)
	}
}
