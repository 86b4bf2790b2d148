package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/dashstore"
)

// syncBuffer is stdout shared between run and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listening = regexp.MustCompile(`disburse dashboard on (http://\S+)`)

// start runs the dashboard as main would and returns its URL, everything it printed so far,
// and a stop function that ends it as SIGINT would (also called when the test ends).
func start(t *testing.T, args []string, env map[string]string) (string, *syncBuffer, func()) {
	t.Helper()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, out) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run returned %v after the context ended", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("run did not return 30 seconds after the context ended")
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			return m[1], out, stop
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("the dashboard did not start:\n%s", out)
	return "", nil, nil
}

// signIn signs in through the login form, as a browser would, and returns the client.
func signIn(t *testing.T, base, email, password string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Cleanup(c.CloseIdleConnections)
	page := get(t, c, base+"/login", http.StatusOK)
	if !strings.Contains(page, "Sign in") {
		t.Fatalf("the login page does not say Sign in:\n%s", page)
	}
	token := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if token == nil {
		t.Fatal("no CSRF token on the login page")
	}
	res, err := c.PostForm(base+"/login", url.Values{"_csrf": {token[1]}, "email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: status %d, want 303", res.StatusCode)
	}
	return c
}

func get(t *testing.T, c *http.Client, u string, want int) string {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d\n%s", u, res.StatusCode, want, b)
	}
	return string(b)
}

func TestRunEmbedded(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--addr", "127.0.0.1:0", "--service-addr", "127.0.0.1:0",
		"--dashboard-db", filepath.Join(dir, "dashboard.db"), "--db", filepath.Join(dir, "disburse.db")}

	base, out, stop := start(t, args, nil)
	printed := regexp.MustCompile(`email:\s+(\S+)\n\s+password:\s+(\S+)`).FindStringSubmatch(out.String())
	if printed == nil {
		t.Fatalf("the first start printed no login:\n%s", out)
	}
	c := signIn(t, base, printed[1], printed[2])
	users := get(t, c, base+"/users", http.StatusOK)
	if !strings.Contains(users, "No users yet") {
		t.Errorf("users page of a fresh start:\n%s", users)
	}
	app := get(t, c, base+"/app", http.StatusOK)
	if !strings.Contains(app, "$0.00") || !strings.Contains(app, "disburse") {
		t.Errorf("app page does not show the embedded app's wallet:\n%s", app)
	}

	// A second start on the same folder reuses the app and the admin, and prints no password.
	stop()
	t.Run("restart", func(t *testing.T) {
		base2, out2, _ := start(t, args, nil)
		if strings.Contains(out2.String(), "password:") {
			t.Errorf("the second start printed a password:\n%s", out2)
		}
		c := signIn(t, base2, printed[1], printed[2])
		if app2 := get(t, c, base2+"/app", http.StatusOK); !strings.Contains(app2, "$0.00") {
			t.Errorf("after a restart the app page does not show the wallet:\n%s", app2)
		}
	})
}

func TestRunAdminPasswordFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--addr", "127.0.0.1:0", "--service-addr", "127.0.0.1:0",
		"--dashboard-db", filepath.Join(dir, "dashboard.db"), "--db", filepath.Join(dir, "disburse.db")}
	env := map[string]string{"DISBURSE_ADMIN_PASSWORD": "a long admin password", "DISBURSE_ADMIN_EMAIL": "boss@example.com"}
	base, out, _ := start(t, args, env)
	if strings.Contains(out.String(), "a long admin password") {
		t.Error("the password from the environment was printed")
	}
	signIn(t, base, "boss@example.com", "a long admin password")
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c config)
	}{
		{name: "defaults", check: func(t *testing.T, c config) {
			if c.Addr != "127.0.0.1:8080" || c.Service.Addr != "127.0.0.1:8081" || c.DashboardDB != "./data/dashboard.db" ||
				c.Service.DB != "./data/disburse.db" || c.APIURL != "" || c.Secure {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "environment", env: map[string]string{"DISBURSE_DASHBOARD_ADDR": "0.0.0.0:9090", "DISBURSE_DASHBOARD_DB": "postgres://u@db/dash",
			"DISBURSE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.1", "DISBURSE_SECURE_COOKIES": "true"},
			check: func(t *testing.T, c config) {
				if c.Addr != "0.0.0.0:9090" || c.DashboardDB != "postgres://u@db/dash" || !c.Secure ||
					strings.Join(c.TrustedProxies, " ") != "10.0.0.0/8 192.168.1.1" {
					t.Errorf("from the environment: %+v", c)
				}
			}},
		{name: "a flag wins over the environment", args: []string{"--addr", "127.0.0.1:7000"},
			env: map[string]string{"DISBURSE_DASHBOARD_ADDR": "0.0.0.0:9090"},
			check: func(t *testing.T, c config) {
				if c.Addr != "127.0.0.1:7000" {
					t.Errorf("addr = %s", c.Addr)
				}
			}},
		{name: "standalone", args: []string{"--api-url", "https://api.example.com/api", "--api-client-id", "id", "--api-key", "key"},
			check: func(t *testing.T, c config) {
				if c.APIURL != "https://api.example.com/api" || c.APIClientID != "id" || c.APIKey != "key" {
					t.Errorf("standalone: %+v", c)
				}
			}},
		{name: "hosted pages elsewhere", args: []string{"--api-url", "https://api.example.com/api", "--api-client-id", "id", "--api-key", "key",
			"--hosted-url", "https://pay.example.com/flow/x"}, check: func(t *testing.T, c config) {
			if c.HostedURL != "https://pay.example.com" {
				t.Errorf("hosted url = %q, want the origin", c.HostedURL)
			}
		}},
		{name: "bad hosted url", args: []string{"--api-url", "https://api.example.com/api", "--api-client-id", "id", "--api-key", "key",
			"--hosted-url", "pay.example.com"}, wantErr: "--hosted-url"},
		{name: "hosted url without api url", args: []string{"--hosted-url", "https://pay.example.com"}, wantErr: "go with --api-url"},
		{name: "api url without credentials", args: []string{"--api-url", "https://api.example.com/api"}, wantErr: "needs --api-client-id"},
		{name: "credentials without api url", args: []string{"--api-key", "key"}, wantErr: "go with --api-url"},
		{name: "bad api url", args: []string{"--api-url", "ftp://x", "--api-client-id", "i", "--api-key", "k"}, wantErr: "want an http or https URL"},
		{name: "bad addr", args: []string{"--addr", "nowhere"}, wantErr: "--addr"},
		{name: "weak admin password", env: map[string]string{"DISBURSE_ADMIN_PASSWORD": "short"}, wantErr: "DISBURSE_ADMIN_PASSWORD"},
		{name: "bad key", args: []string{"--encryption-key", "xyz"}, wantErr: "--encryption-key"},
		{name: "stray argument", args: []string{"serve"}, wantErr: "unexpected arguments"},
		{name: "unknown flag", args: []string{"--nope"}, wantErr: "nope"},
		{name: "approvals by default", check: func(t *testing.T, c config) {
			// The flags' defaults are written from the policy's, and must read back as it.
			want := dashstore.DefaultApprovalPolicy()
			if c.Approvals.On != want.On || c.Approvals.Above != want.Above || c.Approvals.Window != want.Window ||
				c.Approvals.PayeeLimit != want.PayeeLimit || c.Approvals.OperatorLimit != want.OperatorLimit ||
				!slices.Equal(c.Approvals.Approvers, want.Approvers) || !slices.Equal(c.Approvals.BearerLinks, want.BearerLinks) {
				t.Errorf("approvals: %+v, want %+v", c.Approvals, want)
			}
		}},
		{name: "approvals off", env: map[string]string{"DISBURSE_APPROVAL_THRESHOLD": "off"}, check: func(t *testing.T, c config) {
			if c.Approvals.On {
				t.Errorf("approvals: %+v, want off", c.Approvals)
			}
		}},
		{name: "approvals configured", args: []string{"--approval-threshold", "250.5", "--approver-roles", "admin, operations"},
			check: func(t *testing.T, c config) {
				if !c.Approvals.On || c.Approvals.Above != 250_50 ||
					!slices.Equal(c.Approvals.Approvers, []dashstore.Role{dashstore.RoleAdmin, dashstore.RoleOperations}) {
					t.Errorf("approvals: %+v", c.Approvals)
				}
			}},
		{name: "negative threshold", args: []string{"--approval-threshold", "-1"}, wantErr: "--approval-threshold"},
		{name: "threshold with thousands grouped", args: []string{"--approval-threshold", "$2,500.00", "--approval-payee-limit", "3,000"},
			check: func(t *testing.T, c config) {
				if c.Approvals.Above != 2_500_00 || c.Approvals.PayeeLimit != 3_000_00 {
					t.Errorf("approvals: %+v, want above $2,500.00, payee limit $3,000.00", c.Approvals)
				}
			}},
		// A decimal comma is refused, never read as a hundred times the amount.
		{name: "threshold with a decimal comma", args: []string{"--approval-threshold", "10,00"}, wantErr: "--approval-threshold"},
		{name: "payee limit with a decimal comma", args: []string{"--approval-payee-limit", "3.000,00"}, wantErr: "--approval-payee-limit"},
		{name: "operator limit with a decimal comma", args: []string{"--approval-operator-limit", "99,99"}, wantErr: "--approval-operator-limit"},
		{name: "approval totals configured", args: []string{"--approval-window", "48h", "--approval-payee-limit", "5000",
			"--approval-operator-limit", "off"}, check: func(t *testing.T, c config) {
			if c.Approvals.Window != 48*time.Hour || c.Approvals.PayeeLimit != 5000_00 || c.Approvals.OperatorLimit != 0 {
				t.Errorf("approvals: %+v", c.Approvals)
			}
		}},
		{name: "approval window not a duration", args: []string{"--approval-window", "a day"}, wantErr: "--approval-window"},
		{name: "approval payee limit zero", args: []string{"--approval-payee-limit", "0"}, wantErr: "--approval-payee-limit"},
		{name: "approval operator limit not an amount", args: []string{"--approval-operator-limit", "lots"}, wantErr: "--approval-operator-limit"},
		{name: "bulk batch wait", env: map[string]string{"DISBURSE_BULK_BATCH_WAIT": "90s"}, check: func(t *testing.T, c config) {
			if c.BulkBatchWait != 90*time.Second {
				t.Errorf("bulk batch wait %v, want 90s", c.BulkBatchWait)
			}
		}},
		{name: "bulk batch wait not a duration", args: []string{"--bulk-batch-wait", "ten"}, wantErr: "--bulk-batch-wait"},
		{name: "bulk batch wait zero", args: []string{"--bulk-batch-wait", "0s"}, wantErr: "--bulk-batch-wait"},
		{name: "threshold not an amount", args: []string{"--approval-threshold", "lots"}, wantErr: "--approval-threshold"},
		{name: "unknown approver role", args: []string{"--approver-roles", "admin,boss"}, wantErr: `"boss" is not a role`},
		{name: "no approver role", args: []string{"--approver-roles", " , "}, wantErr: "--approver-roles is empty"},
		{name: "bearer link roles", env: map[string]string{"DISBURSE_BEARER_LINK_ROLES": "admin"}, check: func(t *testing.T, c config) {
			if !slices.Equal(c.Approvals.BearerLinks, []dashstore.Role{dashstore.RoleAdmin}) {
				t.Errorf("bearer link roles %v, want admin alone", c.Approvals.BearerLinks)
			}
		}},
		{name: "unknown bearer link role", args: []string{"--bearer-link-roles", "anyone"}, wantErr: `"anyone" is not a role`},
		{name: "no bearer link role", args: []string{"--bearer-link-roles", ""}, wantErr: "--bearer-link-roles is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || cli.ExitCode(err) != 2 {
					t.Fatalf("err = %v (exit %d), want a usage error about %q", err, cli.ExitCode(err), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
