package api_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/api"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
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
	t.Parallel()
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

// TestErrorHandlerStatuses answers errors of each kind through the API's error handler: each
// code gets the status of the one classification (payouts.HTTPStatus) and its own body; anything
// else is a generic 500.
func TestErrorHandlerStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		status   int
		wantBody string
	}{
		{"field problem", payouts.FieldError("amount", "must be greater than zero"), 400,
			`{"error":"invalid-input","message":"amount: must be greater than zero","fields":{"amount":"must be greater than zero"}}`},
		{"unauthorized", payouts.Errorf(payouts.EUnauthorized, "No."), 401, `{"error":"unauthorized","message":"No."}`},
		{"not found", payouts.Errorf(payouts.ENotFound, "No user."), 404, `{"error":"not-found","message":"No user."}`},
		{"reused key", payouts.Errorf(payouts.EIdempotencyReused, "Reused."), 409, `{"error":"idempotency-key-reused","message":"Reused."}`},
		{"insufficient funds", payouts.Errorf(payouts.EInsufficientFunds, "Poor."), 422, `{"error":"transaction-insufficient-funds","message":"Poor."}`},
		{"unknown code", payouts.Errorf("made-up", "Secret."), 500, `{"error":"internal","message":"Internal error."}`},
		{"internal code", payouts.Errorf(payouts.EInternal, "Secret."), 500, `{"error":"internal","message":"Internal error."}`},
		{"plain error", errors.New("secret"), 500, `{"error":"internal","message":"Internal error."}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: api.ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Get("/", func(*fiber.Ctx) error { return tc.err })
			resp, err := app.Test(httptest.NewRequest("GET", "/", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || string(body) != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", resp.StatusCode, body, tc.status, tc.wantBody)
			}
		})
	}
}
