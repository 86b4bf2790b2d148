package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/api"
	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
)

// env returns a getenv reading from vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// started is payoutd running in the background.
type started struct {
	lines  chan string // every line payoutd writes to stdout
	done   chan error  // run's result
	cancel context.CancelFunc
}

// start runs payoutd with args until the test ends.
func start(t *testing.T, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &started{lines: make(chan string, 1000), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := run(ctx, args, env(nil), pw)
		pw.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		cancel()
		for range s.lines {
		}
	})
	return s
}

var listening = regexp.MustCompile(`^payoutd: API at (http://\S+)/v2,`)

// waitListening reads stdout up to the line that says where the API is, and returns the lines
// before it and the API's base URL.
func (s *started) waitListening(t *testing.T) (before []string, base string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("payoutd exited before listening: %v\n%s", <-s.done, strings.Join(before, "\n"))
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				return before, m[1]
			}
			before = append(before, line)
		case <-timeout:
			t.Fatalf("payoutd did not say where it listens; it wrote:\n%s", strings.Join(before, "\n"))
		}
	}
}

// stop ends payoutd as SIGINT would and checks it exits cleanly.
func (s *started) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("run after shutdown: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("payoutd did not stop")
	}
}

var credentialLine = regexp.MustCompile(`^\s+(name|id|client_id|api_key):\s+(.*)$`)

func getApp(t *testing.T, base, appID, clientID, apiKey string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v2/apps/"+appID, nil)
	req.SetBasicAuth(clientID, apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET app: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRunFirstStartPrintsCredentialsAndServes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "data", "disburse.db")
	p := start(t, "--addr", "127.0.0.1:0", "--db", db)
	before, base := p.waitListening(t)

	creds := map[string]string{} // the app's: the organization's follow them
	for _, line := range before {
		if m := credentialLine.FindStringSubmatch(line); m != nil && creds[m[1]] == "" {
			creds[m[1]] = m[2]
		}
	}
	appID := creds["id"]
	if creds["client_id"] == "" || creds["api_key"] == "" || appID == "" {
		t.Fatalf("first start printed no credentials:\n%s", strings.Join(before, "\n"))
	}
	if status := getApp(t, base, appID, creds["client_id"], creds["api_key"]); status != http.StatusOK {
		t.Errorf("GET app with the printed credentials: %d, want 200", status)
	}
	if status := getApp(t, base, appID, creds["client_id"], "wrong"); status != http.StatusUnauthorized {
		t.Errorf("GET app with a wrong key: %d, want 401", status)
	}
	p.stop(t)

	// The second start finds the app and shows no key.
	p = start(t, "--addr", "127.0.0.1:0", "--db", db)
	before, base = p.waitListening(t)
	for _, line := range before {
		if strings.Contains(line, creds["api_key"]) || credentialLine.MatchString(line) {
			t.Errorf("second start printed credentials again: %q", line)
		}
	}
	if status := getApp(t, base, appID, creds["client_id"], creds["api_key"]); status != http.StatusOK {
		t.Errorf("GET app after a restart: %d, want 200", status)
	}
	p.stop(t)
}

func TestRunAppsCreateJSON(t *testing.T) {
	db := filepath.Join(t.TempDir(), "disburse.db")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"apps", "create", "Acme Payouts", "--json", "--db", db}, env(nil), &out); err != nil {
		t.Fatalf("apps create: %v", err)
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("apps create --json printed %q: %v", out.String(), err)
	}
	for _, k := range []string{"id", "name", "client_id", "api_key"} {
		if got[k] == "" {
			t.Errorf("apps create --json: no %q in %s", k, out.String())
		}
	}
	if len(got) != 4 || got["name"] != "Acme Payouts" {
		t.Errorf("apps create --json = %s, want exactly id, name (Acme Payouts), client_id, api_key", out.String())
	}

	// The service on the same database accepts the new app's credentials, and creates no
	// "Default" app since one exists (only the organization, which adopts the app).
	p := start(t, "--addr", "127.0.0.1:0", "--db", db)
	before, base := p.waitListening(t)
	if len(before) > 0 && strings.Contains(strings.Join(before, "\n"), "Created the first app") {
		t.Errorf("payoutd created another app although one existed:\n%s", strings.Join(before, "\n"))
	}
	if status := getApp(t, base, got["id"], got["client_id"], got["api_key"]); status != http.StatusOK {
		t.Errorf("GET app with the created credentials: %d, want 200", status)
	}
	p.stop(t)
}

func TestRunAppsCreateText(t *testing.T) {
	var out bytes.Buffer
	db := filepath.Join(t.TempDir(), "disburse.db")
	if err := run(context.Background(), []string{"apps", "create", "--db", db, "Acme"}, env(nil), &out); err != nil {
		t.Fatalf("apps create: %v", err)
	}
	if !strings.Contains(out.String(), "api_key:") || !strings.Contains(out.String(), "Acme") {
		t.Errorf("apps create printed %q, want the credentials", out.String())
	}
}

func TestParseConfig(t *testing.T) {
	key := strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		args  []string
		vars  map[string]string
		check func(t *testing.T, c config)
	}{
		{"defaults", nil, nil, func(t *testing.T, c config) {
			if c.service.Addr != "127.0.0.1:8081" || c.service.DB != "./data/disburse.db" {
				t.Errorf("addr %q, db %q", c.service.Addr, c.service.DB)
			}
			if c.service.BodyLimit != api.DefaultBodyLimit || c.logFormat != "text" {
				t.Errorf("body limit %d, log format %q", c.service.BodyLimit, c.logFormat)
			}
			if c.service.EncryptionKey != nil {
				t.Errorf("a key without configuration: %x", c.service.EncryptionKey)
			}
			if c.service.HideSandboxInbox {
				t.Error("the sandbox inbox is hidden by default")
			}
		}},
		{"fees and thresholds", []string{"--fees", "paypal=0.50, ach=0.10", "--thresholds-1099", "2025=600,2027=2100.50"}, nil,
			func(t *testing.T, c config) {
				f, th := c.service.Fees, c.service.Thresholds1099
				if f["paypal"] != 50 || f["ach"] != 10 || f["venmo"] != 25 || th[2025] != 600_00 || th[2027] != 2100_50 {
					t.Errorf("fees %v, thresholds %v", f, th)
				}
			}},
		{"ledger check every 10 minutes", []string{"--ledger-check-interval", "10m"}, nil, func(t *testing.T, c config) {
			if c.service.LedgerCheckInterval != 10*time.Minute {
				t.Errorf("ledger check interval %v", c.service.LedgerCheckInterval)
			}
		}},
		{"retention", []string{"--retention", "30d"}, nil, func(t *testing.T, c config) {
			if c.service.Retention != 30*24*time.Hour {
				t.Errorf("retention %v", c.service.Retention)
			}
		}},
		{"retention off", nil, map[string]string{"DISBURSE_RETENTION": "off"}, func(t *testing.T, c config) {
			if c.service.Retention >= 0 {
				t.Errorf("retention %v, want keep everything (negative)", c.service.Retention)
			}
		}},
		{"ledger check off", nil, map[string]string{"DISBURSE_LEDGER_CHECK_INTERVAL": "off"}, func(t *testing.T, c config) {
			if c.service.LedgerCheckInterval >= 0 {
				t.Errorf("ledger check interval %v, want never (negative)", c.service.LedgerCheckInterval)
			}
		}},
		{"sandbox inbox off", nil, map[string]string{"DISBURSE_SANDBOX_INBOX": "off", "DISBURSE_RAILS": "paypal=off,venmo=off,cash_app=off,ach=off"}, func(t *testing.T, c config) {
			if !c.service.HideSandboxInbox {
				t.Error("DISBURSE_SANDBOX_INBOX=off left the inbox on")
			}
		}},
		{"environment", nil, map[string]string{
			"DISBURSE_API_ADDR": "0.0.0.0:9000", "DISBURSE_DB": "postgres://u@db/disburse",
			"DISBURSE_PUBLIC_URL": "https://pay.example.com/", "DISBURSE_ENCRYPTION_KEY": key,
			"DISBURSE_BODY_LIMIT": "2MiB", "DISBURSE_LOG_FORMAT": "json",
			"DISBURSE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.1", "DISBURSE_FRAME_ANCESTORS": "https://a.example, https://b.example",
		}, func(t *testing.T, c config) {
			s := c.service
			if s.Addr != "0.0.0.0:9000" || s.DB != "postgres://u@db/disburse" || s.PublicURL != "https://pay.example.com" {
				t.Errorf("addr %q, db %q, public url %q", s.Addr, s.DB, s.PublicURL)
			}
			if len(s.EncryptionKey) != payoutd.KeySize || s.BodyLimit != 2<<20 || c.logFormat != "json" {
				t.Errorf("key %x, body limit %d, log format %q", s.EncryptionKey, s.BodyLimit, c.logFormat)
			}
			if len(s.TrustedProxies) != 2 || len(s.FrameAncestors) != 2 {
				t.Errorf("trusted proxies %q, frame ancestors %q", s.TrustedProxies, s.FrameAncestors)
			}
		}},
		{"sandbox rails by default", nil, nil, func(t *testing.T, c config) {
			if len(c.service.Providers) != 0 {
				t.Errorf("providers %+v, want none", c.service.Providers)
			}
		}},
		{"PayPal and Venmo through PayPal", []string{"--rails", "paypal=paypal, venmo=paypal,ach=sandbox,cash_app=sandbox"},
			map[string]string{"PAYPAL_CLIENT_ID": "id", "PAYPAL_CLIENT_SECRET": "secret"}, func(t *testing.T, c config) {
				p := c.service.Providers
				if len(p) != 1 || p[0].Name != "paypal" || len(p[0].Rails) != 2 || p[0].Rails["paypal"] == nil ||
					p[0].Rails["venmo"] == nil || p[0].Webhook == nil {
					t.Errorf("providers %+v, want paypal serving paypal and venmo", p)
				}
			}},
		{"only PayPal through PayPal", nil, map[string]string{"DISBURSE_RAILS": "paypal=paypal,venmo=sandbox",
			"PAYPAL_CLIENT_ID": "id", "PAYPAL_CLIENT_SECRET": "secret", "PAYPAL_API_BASE": "https://api-m.paypal.com"},
			func(t *testing.T, c config) {
				p := c.service.Providers
				if len(p) != 1 || len(p[0].Rails) != 1 || p[0].Rails["paypal"] == nil {
					t.Errorf("providers %+v, want paypal serving paypal alone", p)
				}
			}},
		{"messages on the sandbox inbox by default", nil, nil, func(t *testing.T, c config) {
			if len(c.service.Messages) != 0 || len(c.service.SMSCountries) != 0 {
				t.Errorf("message providers %+v, countries %v, want none", c.service.Messages, c.service.SMSCountries)
			}
		}},
		{"email by SMTP, texts by Twilio", []string{"--messages", "email=smtp, sms=twilio", "--sms-countries", "1,+44"},
			messageSettings, func(t *testing.T, c config) {
				m := c.service.Messages
				if len(m) != 2 || m[0].Name != "smtp" || m[0].Channels[0] != "email" || m[0].Notifier == nil || m[0].Status != nil ||
					m[1].Name != "twilio" || m[1].Channels[0] != "sms" || m[1].Notifier == nil || m[1].Status == nil {
					t.Errorf("message providers %+v", m)
				}
				if !slices.Equal(c.service.SMSCountries, []string{"1", "44"}) {
					t.Errorf("countries %v, want 1 and 44", c.service.SMSCountries)
				}
			}},
		{"flags win over the environment", []string{"--addr", "127.0.0.1:7000", "--db", "x.db", "--body-limit", "4096"},
			map[string]string{"DISBURSE_API_ADDR": "0.0.0.0:9000", "DISBURSE_DB": "y.db", "DISBURSE_BODY_LIMIT": "1"},
			func(t *testing.T, c config) {
				if c.service.Addr != "127.0.0.1:7000" || c.service.DB != "x.db" || c.service.BodyLimit != 4096 {
					t.Errorf("addr %q, db %q, body limit %d", c.service.Addr, c.service.DB, c.service.BodyLimit)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, env(tt.vars), io.Discard)
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			tt.check(t, c)
		})
	}
}

func TestParseConfigRefuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		vars map[string]string
	}{
		{"address without port", []string{"--addr", "localhost"}, nil},
		{"public URL without scheme", []string{"--public-url", "pay.example.com"}, nil},
		{"short key", []string{"--encryption-key", "abcd"}, nil},
		{"zero body limit", []string{"--body-limit", "0"}, nil},
		{"body limit in the environment", nil, map[string]string{"DISBURSE_BODY_LIMIT": "lots"}},
		{"log format", []string{"--log-format", "xml"}, nil},
		{"log level", []string{"--log-level", "loud"}, nil},
		{"trusted proxy", []string{"--trusted-proxies", "proxy.local"}, nil},
		{"shutdown timeout", []string{"--shutdown-timeout", "-1s"}, nil},
		{"zero worker interval", []string{"--worker-interval", "0s"}, nil},
		{"zero rail lease", []string{"--rail-lease", "0s"}, nil},
		{"sandbox delay without unit", nil, map[string]string{"DISBURSE_SANDBOX_DELAY": "5"}},
		{"sandbox inbox", []string{"--sandbox-inbox", "maybe"}, nil},
		{"ledger check interval", []string{"--ledger-check-interval", "daily"}, nil},
		{"zero ledger check interval", []string{"--ledger-check-interval", "0s"}, nil},
		{"retention in weeks", []string{"--retention", "12w"}, nil},
		{"zero retention", []string{"--retention", "0d"}, nil},
		{"fee of an unknown platform", []string{"--fees", "zelle=1"}, nil},
		{"negative fee", []string{"--fees", "paypal=-1"}, nil},
		{"threshold of a bad year", []string{"--thresholds-1099", "soon=600"}, nil},
		{"threshold in cents with decimals", []string{"--thresholds-1099", "2026=1.234"}, nil},
		{"unknown flag", []string{"--port", "80"}, nil},
		{"stray argument", []string{"serve"}, nil},
		{"empty database", []string{"--db", " "}, nil},
		{"Cash App through PayPal", []string{"--rails", "cash_app=paypal"}, paypalCredentials},
		{"ACH through PayPal", []string{"--rails", "ach=paypal"}, paypalCredentials},
		{"unknown rail", []string{"--rails", "paypal=zelle"}, paypalCredentials},
		{"unknown platform", []string{"--rails", "zelle=paypal"}, paypalCredentials},
		{"rail without platform", []string{"--rails", "paypal"}, paypalCredentials},
		{"PayPal without credentials", []string{"--rails", "paypal=paypal"}, nil},
		{"an unknown message provider", []string{"--messages", "email=sendgrid"}, messageSettings},
		{"a text provider for email", []string{"--messages", "email=twilio"}, messageSettings},
		{"an unknown channel", []string{"--messages", "fax=smtp"}, messageSettings},
		{"a channel twice", []string{"--messages", "email=smtp,email=sandbox"}, messageSettings},
		{"texts by Twilio without countries", []string{"--messages", "sms=twilio"}, messageSettings},
		{"a country that is no calling code", []string{"--sms-countries", "GB"}, nil},
		{"SMTP without a URL", []string{"--messages", "email=smtp"}, map[string]string{"DISBURSE_EMAIL_FROM": "payouts@example.com"}},
		{"Twilio without a sender", []string{"--messages", "sms=twilio", "--sms-countries", "1"},
			map[string]string{"TWILIO_ACCOUNT_SID": "AC123", "TWILIO_AUTH_TOKEN": "s3cr3t"}},
		{"PayPal at a base that is no URL", []string{"--rails", "paypal=paypal"},
			map[string]string{"PAYPAL_CLIENT_ID": "id", "PAYPAL_CLIENT_SECRET": "s3cr3t-never-shown", "PAYPAL_API_BASE": "api-m.paypal.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, env(tt.vars), io.Discard)
			if err == nil {
				t.Fatal("parseConfig accepted it")
			}
			if cli.ExitCode(err) != 2 {
				t.Errorf("exit code %d for %v, want 2 (usage)", cli.ExitCode(err), err)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}
}

// messageSettings configure an SMTP server and a Twilio account, so that a refusal is the
// --messages value's fault alone.
var messageSettings = map[string]string{"DISBURSE_SMTP_URL": "smtp://user:s3cr3t@mail.example.com:587",
	"DISBURSE_EMAIL_FROM": "payouts@example.com", "TWILIO_ACCOUNT_SID": "AC123", "TWILIO_AUTH_TOKEN": "s3cr3t",
	"TWILIO_FROM": "+14155552345"}

// paypalCredentials are a PayPal app's, so that a refusal is the --rails value's fault alone.
var paypalCredentials = map[string]string{"PAYPAL_CLIENT_ID": "id", "PAYPAL_CLIENT_SECRET": "s3cr3t"}

func TestRunRefuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"PostgreSQL without a key", []string{"--db", "postgres://nobody@127.0.0.1:1/none"}, "encryption key is required"},
		{"apps without create", []string{"apps", "list"}, "usage"},
		{"apps create without a name", []string{"apps", "create"}, "usage"},
		{"apps create with two names", []string{"apps", "create", "a", "b"}, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.args, env(nil), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error saying %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestRunHelp prints the usage and stops: it must not start a service on the default database.
func TestRunHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"apps", "create", "-h"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- run(context.Background(), args, env(nil), &out) }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run(%q) = %v, want nil", args, err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("run(%q) did not return; it serves instead of printing the usage", args)
			}
			if !strings.Contains(out.String(), "-db") {
				t.Errorf("run(%q) printed %q, want the flags", args, out.String())
			}
			if args[0] != "apps" {
				for _, sub := range []string{"payoutd apps create", "payoutd check", "payoutd backup", "payoutd reconcile --platform"} {
					if !strings.Contains(out.String(), sub) {
						t.Errorf("run(%q) printed %q, want it to list %q", args, out.String(), sub)
					}
				}
			}
			if _, err := os.Stat("data"); !os.IsNotExist(err) {
				t.Errorf("run(%q) created ./data", args)
			}
		})
	}
}

// stripeCredentials are a Stripe Treasury account's, so that a refusal is the --rails value's
// fault alone.
var stripeCredentials = map[string]string{"STRIPE_API_KEY": "sk_test_s3cr3t", "STRIPE_FINANCIAL_ACCOUNT": "fa_123",
	"STRIPE_WEBHOOK_SECRET": "whsec_s3cr3t"}

// Outside sandbox mode no platform may pay through the sandbox rail: each has its provider or is
// turned off, and the refusal names the flag and the platforms.
func TestProductionRails(t *testing.T) {
	providers := map[string]string{}
	maps.Copy(providers, paypalCredentials)
	maps.Copy(providers, stripeCredentials)
	tests := []struct {
		name      string
		args      []string
		refused   []string // the platforms a refusal names; nil: accepted
		wantRails map[payouts.Platform]string
	}{
		{"production with no rails", []string{"--sandbox-inbox", "off"}, []string{"paypal", "venmo", "cash_app", "ach"}, nil},
		{"production with PayPal alone", []string{"--sandbox-inbox", "off", "--rails", "paypal=paypal"},
			[]string{"venmo", "cash_app", "ach"}, nil},
		{"production naming the sandbox", []string{"--sandbox-inbox", "off", "--rails", "paypal=paypal,venmo=paypal,ach=stripe,cash_app=sandbox"},
			[]string{"cash_app"}, nil},
		{"production with every platform served or off", []string{"--sandbox-inbox", "off", "--rails", "paypal=paypal,venmo=off,ach=stripe,cash_app=off"},
			nil, map[payouts.Platform]string{"paypal": "paypal", "venmo": "off", "ach": "stripe", "cash_app": "off"}},
		{"sandbox mode keeps unlisted platforms on the sandbox", []string{"--rails", "cash_app=off"},
			nil, map[payouts.Platform]string{"cash_app": "off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, env(providers), io.Discard)
			if tt.refused != nil {
				if err == nil {
					t.Fatal("parseConfig accepted it")
				}
				if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--rails") || !strings.Contains(err.Error(), "DISBURSE_RAILS") {
					t.Errorf("exit code %d, error %q; want a usage error naming --rails (DISBURSE_RAILS)", cli.ExitCode(err), err)
				}
				for _, p := range tt.refused {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("error %q does not name %s", err, p)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			got := map[payouts.Platform]string{}
			for _, pr := range c.service.Providers {
				for p := range pr.Rails {
					got[p] = pr.Name
				}
			}
			if !maps.Equal(got, tt.wantRails) {
				t.Errorf("rails %v, want %v", got, tt.wantRails)
			}
		})
	}
}
