package service_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// countingStore counts the reads of an app by its client id.
type countingStore struct {
	service.Store
	reads *atomic.Int64
}

func (s countingStore) AppByClientID(ctx context.Context, clientID string) (*service.AppRecord, error) {
	s.reads.Add(1)
	return s.Store.AppByClientID(ctx, clientID)
}

// TestAuthenticateRemembers: credentials that authenticated are checked from memory for a minute,
// then read again; wrong ones are never remembered and never admitted.
func TestAuthenticateRemembers(t *testing.T) {
	e := newEnv(t, 0)
	var reads atomic.Int64
	e.wrapStore = func(st service.Store) service.Store { return countingStore{Store: st, reads: &reads} }
	e.open(t)
	cred, err := e.svc.CreateApp(e.ctx, "Beta")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name      string
		key       string
		advance   time.Duration
		wantOK    bool
		wantReads int64 // in all, after the step
	}{
		{"a wrong key is read and refused", "wrong", 0, false, 1},
		{"and not remembered", "wrong", 0, false, 2},
		{"the right key is read", cred.APIKey, 0, true, 3},
		{"then remembered", cred.APIKey, 59 * time.Second, true, 3},
		{"a wrong key is read again and refused", "wrong", 0, false, 4},
		{"a minute on it is read again", cred.APIKey, 2 * time.Second, true, 5},
	}
	for _, step := range steps {
		e.clock.Advance(step.advance)
		p, err := e.svc.Authenticate(e.ctx, cred.ClientID, step.key, "")
		switch {
		case step.wantOK && (err != nil || p.AppID != cred.AppID):
			t.Fatalf("%s: Authenticate = %+v, %v; want app %s", step.name, p, err, cred.AppID)
		case !step.wantOK && payouts.ErrorCode(err) != payouts.EUnauthorized:
			t.Fatalf("%s: Authenticate = %+v, %v; want unauthorized", step.name, p, err)
		}
		if got := reads.Load(); got != step.wantReads {
			t.Fatalf("%s: %d reads of the app in all, want %d", step.name, got, step.wantReads)
		}
	}
}

// TestAdoptAppsForgetsCredentials: an app remembered before it joined an organization
// authenticates as a member of it right after AdoptApps, not a minute later.
func TestAdoptAppsForgetsCredentials(t *testing.T) {
	e := newEnv(t, 0)
	cred, err := e.svc.CreateApp(e.ctx, "Beta")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := e.svc.Authenticate(e.ctx, cred.ClientID, cred.APIKey, ""); err != nil || p.OrganizationID != "" {
		t.Fatalf("before any organization: Authenticate = %+v, %v", p, err)
	}
	org, err := e.svc.CreateOrganization(e.ctx, "Holding")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.AdoptApps(e.ctx, org.AppID); err != nil {
		t.Fatal(err)
	}
	if p, err := e.svc.Authenticate(e.ctx, cred.ClientID, cred.APIKey, ""); err != nil || p.OrganizationID != org.AppID {
		t.Errorf("after AdoptApps: Authenticate = %+v, %v; want organization %s", p, err, org.AppID)
	}
}
