package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

func TestNewBaseURL(t *testing.T) {
	var lastPath atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lastPath.Store(r.URL.Path)
		w.Write([]byte(`{"id":"a1","name":"x","wallet":{}}`))
	}))
	defer srv.Close()
	valid := []struct{ base, wantPath string }{
		{srv.URL + "/api", "/api/v2/apps/a1"},
		{srv.URL + "/api/", "/api/v2/apps/a1"},
		{srv.URL + "/api/v2", "/api/v2/apps/a1"},
		{srv.URL + "/api/v2/", "/api/v2/apps/a1"},
		{" " + srv.URL + "/deep/prefix ", "/deep/prefix/v2/apps/a1"},
		{srv.URL, "/v2/apps/a1"},
		{srv.URL + "/", "/v2/apps/a1"},
	}
	for _, tt := range valid {
		t.Run(tt.base, func(t *testing.T) {
			c, err := client.New(tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.GetApp(context.Background(), "a1"); err != nil {
				t.Fatal(err)
			}
			if got := lastPath.Load(); got != tt.wantPath {
				t.Errorf("path = %v, want %s", got, tt.wantPath)
			}
		})
	}
	invalid := []string{"", "localhost:8081/api", "ftp://host/api", "http:///api", "http://host/api?x=1",
		"http://host/api#top", "http://user:pw@host/api", "http://[::1"}
	for _, base := range invalid {
		t.Run("invalid "+base, func(t *testing.T) {
			if c, err := client.New(base); err == nil {
				t.Errorf("New(%q) = %v, want an error", base, c)
			}
		})
	}
	t.Run("nil http client", func(t *testing.T) {
		if _, err := client.New(srv.URL, client.WithHTTPClient(nil)); err == nil {
			t.Error("New accepted a nil *http.Client")
		}
	})
	t.Run("negative timeout", func(t *testing.T) {
		if _, err := client.New(srv.URL, client.WithTimeout(-time.Second)); err == nil {
			t.Error("New accepted a negative timeout")
		}
	})
}

// TestEmptyIDIsRefused checks that a missing id never turns GET /v2/users/{id} into a list or a
// DELETE into something else: the call fails before any request.
func TestEmptyIDIsRefused(t *testing.T) {
	c, got := sampleServer(t, http.StatusOK, sample(t, "user.json"))
	ctx := context.Background()
	calls := map[string]func() error{
		"GetUser":          func() error { _, err := c.GetUser(ctx, ""); return err },
		"DeleteUser":       func() error { _, err := c.DeleteUser(ctx, ""); return err },
		"AddPayoutMethod":  func() error { _, err := c.AddPayoutMethod(ctx, "", payouts.AddPayoutMethodRequest{}); return err },
		"CancelPayoutLink": func() error { _, err := c.CancelPayoutLink(ctx, ""); return err },
		"Deposit":          func() error { _, err := c.Deposit(ctx, "", payouts.DepositRequest{Amount: 1}); return err },
		"SubmitCompliance": func() error { return c.SubmitCompliance(ctx, "", payouts.ComplianceRequest{}) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			var e *payouts.Error
			if !errors.As(err, &e) || e.Code != payouts.EInvalidInput || e.Fields["id"] == "" {
				t.Errorf("err = %v, want invalid-input naming the id", err)
			}
		})
	}
	if n := len(got()); n != 0 {
		t.Errorf("%d requests sent for empty ids", n)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	t.Run("app id and user agent", func(t *testing.T) {
		var sent atomic.Pointer[http.Header]
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := r.Header.Clone()
			sent.Store(&h)
			w.Write([]byte(`{"id":"a1"}`))
		}))
		defer srv.Close()
		c, err := client.New(srv.URL+"/api", client.WithAppID("app-7"), client.WithUserAgent("dashboard/2"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetApp(ctx, "a1"); err != nil {
			t.Fatal(err)
		}
		h := *sent.Load()
		if h.Get("Api-App-Id") != "app-7" || h.Get("User-Agent") != "dashboard/2" || h.Get("Authorization") != "" {
			t.Errorf("headers = %v", h)
		}
	})
	t.Run("http client", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"id":"a1"}`))
		}))
		defer srv.Close()
		var used atomic.Int32
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			used.Add(1)
			return http.DefaultTransport.RoundTrip(r)
		})}
		c, err := client.New(srv.URL, client.WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetApp(ctx, "a1"); err != nil || used.Load() != 1 {
			t.Errorf("GetApp: %v; custom transport used %d times", err, used.Load())
		}
	})
	t.Run("timeout per attempt", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers; the client gives up
		}))
		defer srv.Close()
		c, err := client.New(srv.URL, client.WithTimeout(20*time.Millisecond),
			client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetApp(ctx, "a1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want a wrapped deadline", err)
		}
	})
	t.Run("network error is wrapped", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		c, err := client.New("http://"+addr+"/api", client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetApp(ctx, "a1")
		var opErr *net.OpError
		var apiErr *payouts.Error
		if !errors.As(err, &opErr) || errors.As(err, &apiErr) || !strings.Contains(err.Error(), "GET /v2/apps/a1") {
			t.Errorf("err = %v, want a wrapped *net.OpError naming the call", err)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// pagingServer serves n users, newest first, as the service pages them: at most limit after the
// starting_after cursor, with has_more. failPage, when positive, answers that page (1-based) with
// a 400. It returns the client and the queries it received.
func pagingServer(t *testing.T, n, failPage int) (*client.Client, func() []url.Values) {
	t.Helper()
	var mu sync.Mutex
	var queries []url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		queries = append(queries, q)
		page := len(queries)
		mu.Unlock()
		if page == failPage {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"invalid-input","message":"limit: must be between 1 and 100","fields":{"limit":"must be between 1 and 100"}}`))
			return
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		start := 0
		if after := q.Get("starting_after"); after != "" {
			start, _ = strconv.Atoi(strings.TrimPrefix(after, "u-"))
		}
		var data []string
		for i := start + 1; i <= n && len(data) < limit; i++ {
			data = append(data, fmt.Sprintf(`{"id":"u-%d","wallet":{"amount":"%d"}}`, i, i))
		}
		hasMore := start+len(data) < n
		fmt.Fprintf(w, `{"has_more":%v,"data":[%s]}`, hasMore, strings.Join(data, ","))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []url.Values {
		mu.Lock()
		defer mu.Unlock()
		return append([]url.Values(nil), queries...)
	}
}

func TestAllUsersWalksEveryPage(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 100, 101, 250} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			c, queries := pagingServer(t, n, 0)
			var got []string
			for u, err := range c.AllUsers(ctx, payouts.UserFilter{Status: payouts.UserVerified, Search: "ada"}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, u.ID)
			}
			if len(got) != n {
				t.Fatalf("got %d users, want %d", len(got), n)
			}
			for i, id := range got {
				if id != fmt.Sprintf("u-%d", i+1) {
					t.Fatalf("user %d = %s: out of order or repeated", i, id)
				}
			}
			wantPages := max(1, (n+99)/100) // a last full page already says has_more=false
			qs := queries()
			if len(qs) != wantPages {
				t.Errorf("%d requests, want %d", len(qs), wantPages)
			}
			for i, q := range qs {
				if q.Get("limit") != "100" || q.Get("status") != "verified" || q.Get("search") != "ada" {
					t.Errorf("page %d query = %v", i+1, q)
				}
				want := "" // the first page has no cursor, the next start after the last user seen
				if i > 0 {
					want = fmt.Sprintf("u-%d", i*100)
				}
				if q.Get("starting_after") != want {
					t.Errorf("page %d cursor = %q, want %q", i+1, q.Get("starting_after"), want)
				}
			}
		})
	}
}

func TestAllUsersStopsEarlyAndOnError(t *testing.T) {
	ctx := context.Background()
	t.Run("break stops the requests", func(t *testing.T) {
		c, queries := pagingServer(t, 250, 0)
		seen := 0
		for _, err := range c.AllUsers(ctx, payouts.UserFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			if seen++; seen == 150 {
				break
			}
		}
		if n := len(queries()); n != 2 {
			t.Errorf("%d requests for 150 users, want 2", n)
		}
	})
	t.Run("error yielded once", func(t *testing.T) {
		c, _ := pagingServer(t, 250, 2)
		var ids []string
		var errs []error
		for u, err := range c.AllUsers(ctx, payouts.UserFilter{}) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ids = append(ids, u.ID)
		}
		if len(ids) != 100 || len(errs) != 1 || payouts.ErrorCode(errs[0]) != payouts.EInvalidInput {
			t.Errorf("got %d users and errors %v; want the first page then one invalid-input", len(ids), errs)
		}
	})
}

func TestAllStopsOnAStuckCursor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"has_more":true,"data":[{"id":7,"amount":"1"}]}`)) // the same page forever
	}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var lastErr error
	for tx, err := range c.AllTransactions(context.Background(), payouts.TransactionFilter{}) {
		if err != nil {
			lastErr = err
			break
		}
		ids = append(ids, tx.ID)
	}
	if len(ids) != 2 || lastErr == nil || !strings.Contains(lastErr.Error(), "does not advance") {
		t.Errorf("ids %v, err %v; want two pages then a stuck-cursor error", ids, lastErr)
	}
}
