package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

// answerFunc answers one attempt.
type answerFunc func(w http.ResponseWriter, r *http.Request)

func status(code int, body string, header ...string) answerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// dropConnection closes the connection without answering, as a crashed proxy or a reset would.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

const okTransfer = `{"id":"5f1e2d3c-4b5a-4968-8776-655443322110","amount":-500,"type":"balance","status":"completed"}`

// scriptedServer answers the i-th attempt with answers[i] (the last one repeats) and records the
// body of every attempt. The client records the waits it would take instead of taking them.
type scriptedServer struct {
	client *Client
	mu     sync.Mutex
	bodies []string
	waits  []time.Duration
}

func newScriptedServer(t *testing.T, policy RetryPolicy, answers ...answerFunc) *scriptedServer {
	t.Helper()
	s := &scriptedServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		n := len(s.bodies)
		s.mu.Unlock()
		answers[min(n, len(answers))-1](w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/api", WithRetry(policy))
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		s.mu.Lock()
		s.waits = append(s.waits, d)
		s.mu.Unlock()
		return ctx.Err()
	}
	s.client = c
	return s
}

func (s *scriptedServer) attempts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

var testPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}

// TestWhichRequestsRetry checks that GETs and idempotency-keyed writes are retried, with the same
// bytes (and so the same key) on every attempt, and that other writes are sent exactly once.
func TestWhichRequestsRetry(t *testing.T) {
	ctx := context.Background()
	const uid = "2c3b5d5e-8f1a-4b6e-9d6a-3f0e7c1a2b44"
	calls := []struct {
		name  string
		retry bool
		call  func(*Client) error
	}{
		{"GetUser", true, func(c *Client) error { _, err := c.GetUser(ctx, uid); return err }},
		{"ListTransfers", true, func(c *Client) error {
			_, err := c.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{})
			return err
		}},
		{"ListPayoutMethods", true, func(c *Client) error { _, err := c.ListPayoutMethods(ctx, uid); return err }},
		{"CreateTransfer", true, func(c *Client) error {
			_, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: uid, Amount: -500})
			return err
		}},
		{"CreatePayout", true, func(c *Client) error {
			_, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: uid, Amount: 500, Platform: payouts.PlatformPayPal})
			return err
		}},
		{"CreatePayoutLink", true, func(c *Client) error {
			_, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 500})
			return err
		}},
		{"Deposit", true, func(c *Client) error {
			_, err := c.Deposit(ctx, "a1", payouts.DepositRequest{Amount: 500})
			return err
		}},
		{"CreateUser", false, func(c *Client) error {
			_, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Ada"})
			return err
		}},
		{"UpdateUser", false, func(c *Client) error {
			_, err := c.UpdateUser(ctx, uid, payouts.UpdateUserRequest{Metadata: json.RawMessage(`{}`)})
			return err
		}},
		{"DeleteUser", false, func(c *Client) error { _, err := c.DeleteUser(ctx, uid); return err }},
		{"AddPayoutMethod", false, func(c *Client) error {
			_, err := c.AddPayoutMethod(ctx, uid, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal})
			return err
		}},
		{"SubmitCompliance", false, func(c *Client) error {
			return c.SubmitCompliance(ctx, uid, payouts.ComplianceRequest{W9: &payouts.W9{}})
		}},
		{"SendVerificationToken", false, func(c *Client) error {
			return c.SendVerificationToken(ctx, uid, payouts.SendVerificationTokenRequest{})
		}},
		{"VerifyUser", false, func(c *Client) error {
			return c.VerifyUser(ctx, uid, payouts.VerifyUserRequest{Token: "123456"})
		}},
		{"ReviewTransfer", false, func(c *Client) error {
			_, err := c.ReviewTransfer(ctx, "t1", payouts.ReviewTransferRequest{Action: payouts.ReviewRelease})
			return err
		}},
		{"GetAppStats", true, func(c *Client) error { _, err := c.GetAppStats(ctx, "a1", 0, ""); return err }},
		{"CancelPayoutLink", false, func(c *Client) error { _, err := c.CancelPayoutLink(ctx, "l1"); return err }},
		{"CreateFlow", false, func(c *Client) error {
			_, err := c.CreateFlow(ctx, payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: "payout"}}})
			return err
		}},
	}
	failures := []struct {
		name  string
		first answerFunc
	}{
		{"503", status(503, `{"error":"internal","message":"down"}`)},
		{"500 html", status(500, `<html>oops</html>`)},
		{"429", status(429, "")},
		{"dropped connection", dropConnection},
	}
	// The success answer suits every call: unknown fields are ignored, and a list of payout
	// methods is accepted as a list object.
	success := status(200, `{"id":"x","has_more":false,"data":[]}`)
	for _, f := range failures {
		for _, tt := range calls {
			t.Run(f.name+"/"+tt.name, func(t *testing.T) {
				s := newScriptedServer(t, testPolicy, f.first, f.first, success)
				err := tt.call(s.client)
				got := s.attempts()
				if !tt.retry {
					if err == nil || len(got) != 1 {
						t.Fatalf("err %v after %d attempts; want the failure after exactly 1", err, len(got))
					}
					return
				}
				if err != nil || len(got) != 3 {
					t.Fatalf("err %v after %d attempts; want success on the 3rd", err, len(got))
				}
				for i := 1; i < len(got); i++ {
					if got[i] != got[0] {
						t.Errorf("attempt %d sent %q, attempt 1 sent %q", i+1, got[i], got[0])
					}
				}
			})
		}
	}
}

func TestRetryDecisions(t *testing.T) {
	ctx := context.Background()
	createTransfer := func(c *Client) error {
		_, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: "u1", Amount: -500})
		return err
	}
	tests := []struct {
		name     string
		policy   RetryPolicy
		answers  []answerFunc
		attempts int
		waits    []time.Duration // exact waits; nil: only their count is checked against attempts
		code     string          // the error code returned, "" for success
	}{
		{"resource busy is retried", testPolicy,
			[]answerFunc{status(409, `{"error":"resource-busy","message":"still running"}`), status(200, okTransfer)},
			2, nil, ""},
		{"key reused is final", testPolicy,
			[]answerFunc{status(409, `{"error":"idempotency-key-reused","message":"other body"}`)},
			1, nil, payouts.EIdempotencyReused},
		{"validation is final", testPolicy,
			[]answerFunc{status(400, `{"error":"invalid-input","message":"amount: must not be zero"}`)},
			1, nil, payouts.EInvalidInput},
		{"insufficient funds is final", testPolicy,
			[]answerFunc{status(422, `{"error":"transaction-insufficient-funds","message":"no money"}`)},
			1, nil, payouts.EInsufficientFunds},
		{"501 is final", testPolicy, []answerFunc{status(501, "")}, 1, nil, payouts.EInternal},
		{"attempts run out", testPolicy, []answerFunc{status(502, "")}, 4, nil, payouts.EInternal},
		{"retries off", RetryPolicy{}, []answerFunc{status(503, "")}, 1, nil, payouts.EInternal},
		{"retry-after seconds", testPolicy,
			[]answerFunc{status(429, "", "Retry-After", "1"), status(200, okTransfer)},
			2, []time.Duration{time.Second}, ""},
		{"retry-after zero", testPolicy,
			[]answerFunc{status(503, "", "Retry-After", "0"), status(200, okTransfer)},
			2, []time.Duration{0}, ""},
		{"retry-after beyond the cap ends the retries", testPolicy,
			[]answerFunc{status(429, `{"error":"too-many-requests","message":"slow down"}`, "Retry-After", "120")},
			1, []time.Duration{}, payouts.ETooManyRequests},
		{"retry-after without a cap is honoured", RetryPolicy{MaxAttempts: 2},
			[]answerFunc{status(429, "", "Retry-After", "120"), status(200, okTransfer)},
			2, []time.Duration{2 * time.Minute}, ""},
		{"unreadable retry-after falls back to backoff", RetryPolicy{MaxAttempts: 2},
			[]answerFunc{status(429, "", "Retry-After", "soon"), status(200, okTransfer)},
			2, []time.Duration{0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScriptedServer(t, tt.policy, tt.answers...)
			err := createTransfer(s.client)
			if got := len(s.attempts()); got != tt.attempts {
				t.Errorf("%d attempts, want %d", got, tt.attempts)
			}
			if code := payouts.ErrorCode(err); code != tt.code {
				t.Errorf("err = %v, want code %q", err, tt.code)
			}
			if len(s.waits) != tt.attempts-1 {
				t.Errorf("waited %d times between %d attempts", len(s.waits), tt.attempts)
			}
			if tt.waits != nil {
				for i, w := range tt.waits {
					if i < len(s.waits) && s.waits[i] != w {
						t.Errorf("wait %d = %v, want %v", i+1, s.waits[i], w)
					}
				}
			}
			for i, w := range s.waits {
				if tt.policy.MaxDelay > 0 && w > tt.policy.MaxDelay {
					t.Errorf("wait %d = %v beyond MaxDelay %v", i+1, w, tt.policy.MaxDelay)
				}
			}
		})
	}
}

func TestRetryStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := newScriptedServer(t, testPolicy, status(503, `{"error":"internal","message":"down"}`))
	s.client.sleep = func(context.Context, time.Duration) error {
		cancel() // the caller gives up while the client waits to retry
		return ctx.Err()
	}
	_, err := s.client.GetUser(ctx, "u1")
	var e *payouts.Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Status != 503 {
		t.Errorf("err = %v, want the 503 and the cancellation", err)
	}
	if n := len(s.attempts()); n != 1 {
		t.Errorf("%d attempts after cancellation, want 1", n)
	}
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	ceilings := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000}
	for i, ceiling := range ceilings {
		ceiling *= time.Millisecond
		attempt := i + 1
		for range 200 {
			d := p.backoff(attempt)
			if d < ceiling/2 || d > ceiling {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, ceiling/2, ceiling)
			}
		}
	}
	if d := (RetryPolicy{BaseDelay: time.Hour}).backoff(200); d < 0 {
		t.Errorf("uncapped backoff overflowed to %v", d)
	}
	if d := (RetryPolicy{}).backoff(3); d != 0 {
		t.Errorf("zero base delay waits %v", d)
	}
	// Jitter: the waits are not all the same.
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[p.backoff(3)] = true
	}
	if len(seen) < 2 {
		t.Errorf("backoff has no jitter: %v", seen)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"999999999999", 24 * time.Hour, true},
		{"Sun, 01 Mar 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.header, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v %v, want %v %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}
