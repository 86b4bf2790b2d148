package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
)

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInternalErrorsLeakNothing breaks the database under a running service: the client gets
// a generic 500, the log gets the real error. (servicetest would fail any 500, so this test
// builds the server itself.)
func TestInternalErrorsLeakNothing(t *testing.T) {
	var log lockedBuffer
	srv, err := payoutd.New(context.Background(), payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db")},
		slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	creds, err := srv.CreateApp(context.Background(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	srv.Store().Close()

	req := httptest.NewRequest("GET", "/api/v2/users", nil)
	req.SetBasicAuth(creds.ClientID, creds.APIKey)
	resp, err := srv.App().Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || string(body) != `{"error":"internal","message":"Internal error."}` {
		t.Errorf("broken database: %d %s, want 500 and the generic error body", resp.StatusCode, body)
	}
	if !strings.Contains(log.String(), "database is closed") || !strings.Contains(log.String(), "status=500") {
		t.Errorf("the log does not say what went wrong:\n%s", log.String())
	}
}
