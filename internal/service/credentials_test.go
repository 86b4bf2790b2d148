package service_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/testclock"
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
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := testclock.New(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC))
	cfg := service.Config{EncryptionKey: make([]byte, 32), PublicURL: "http://pay.test"}
	var reads atomic.Int64
	svc, err := service.New(countingStore{Store: st, reads: &reads}, sandbox.Wire(cfg, clock, 0, 0), clock,
		sandbox.Inbox{Store: st, Key: cfg.EncryptionKey, Clock: clock}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := svc.CreateApp(ctx, "Acme")
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
		{"a wrong key is refused from memory", "wrong", 0, false, 3},
		{"a minute on it is read again", cred.APIKey, 2 * time.Second, true, 4},
	}
	for _, step := range steps {
		clock.Advance(step.advance)
		p, err := svc.Authenticate(ctx, cred.ClientID, step.key, "")
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
