package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/web"
)

// config is everything the dashboard was told, parsed once and validated.
type config struct {
	Addr        string // where the dashboard listens
	DashboardDB string // the dashboard's own database: a SQLite path or a postgres:// URL
	PublicURL   string // the dashboard's origin as browsers reach it; default http://Addr

	// Standalone: a service elsewhere. Empty APIURL means embedded.
	APIURL      string
	APIClientID string
	APIKey      string
	AppID       string // the app whose wallet the app page shows (embedded: known)
	// HostedURL is the origin of that service's hosted pages, which the flow page frames: on a
	// Dots account not the API's origin. Empty: the API's origin, as our payoutd serves both.
	HostedURL string

	// Embedded: the Payout Service started in-process.
	Service payoutd.Config

	AdminEmail    string // the first admin, created when there is no operator
	AdminPassword string // from DISBURSE_ADMIN_PASSWORD only (a flag would show in ps); empty = random

	Secure         bool
	TrustedProxies []string
	ProxyHeader    string
	LogFormat      string
	MetricsAddr    string             // internal address of /metrics and pprof; empty = off
	Password       web.PasswordParams // zero = web.DefaultPasswordParams; tests make it cheap

	Approvals dashstore.ApprovalPolicy // payouts above a threshold or past a window's limits wait for a second operator
	// BulkBatchWait is how long a bulk payout waits for one of its transfer batches to finish.
	BulkBatchWait time.Duration
	// BulkLease is how long a bulk payout stays this process's after it last renewed its hold;
	// then another dashboard on the same database takes it over.
	BulkLease time.Duration
	// BulkRepeatWindow is how far back a bulk file's rows are compared with earlier files' rows.
	BulkRepeatWindow time.Duration
}

const defaultAddr = "127.0.0.1:8080"

// parseConfig reads flags, with defaults from DISBURSE_* variables, and validates them.
func parseConfig(args []string, getenv func(string) string, output io.Writer) (config, error) {
	env := cli.Env(getenv)
	var c config
	var trusted, encryptionKey, secure, threshold, approvers, bearerLinks, bulkWait, bulkLease, bulkRepeats, window, payeeLimit, operatorLimit string
	approvals := dashstore.DefaultApprovalPolicy()
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(&c.Addr, "addr", env("DISBURSE_DASHBOARD_ADDR", defaultAddr), "dashboard listen address (DISBURSE_DASHBOARD_ADDR)")
	fs.StringVar(&c.DashboardDB, "dashboard-db", env("DISBURSE_DASHBOARD_DB", "./data/dashboard.db"),
		"the dashboard's database (operators, sessions, audit log): SQLite file path or postgres:// URL (DISBURSE_DASHBOARD_DB)")
	fs.StringVar(&c.PublicURL, "public-dashboard-url", env("DISBURSE_DASHBOARD_URL", ""),
		"the dashboard's origin as browsers reach it, allowed to frame the hosted pages; default http://ADDR (DISBURSE_DASHBOARD_URL)")
	fs.StringVar(&c.APIURL, "api-url", env("DISBURSE_API_URL", ""),
		"base URL of a Payout Service to use instead of the embedded one, e.g. https://api.example.com/api (DISBURSE_API_URL)")
	fs.StringVar(&c.APIClientID, "api-client-id", env("DISBURSE_API_CLIENT_ID", ""), "API client id, with --api-url (DISBURSE_API_CLIENT_ID)")
	fs.StringVar(&c.APIKey, "api-key", env("DISBURSE_API_KEY", ""), "API key, with --api-url (DISBURSE_API_KEY)")
	fs.StringVar(&c.HostedURL, "hosted-url", env("DISBURSE_HOSTED_URL", ""),
		"origin of the hosted pages (flows) the flow page frames, with --api-url; default the API's origin (DISBURSE_HOSTED_URL)")
	fs.StringVar(&c.AppID, "app-id", env("DISBURSE_APP_ID", ""), "id of the app, with --api-url, for the app wallet page (DISBURSE_APP_ID)")
	fs.StringVar(&c.Service.Addr, "service-addr", env("DISBURSE_API_ADDR", payoutd.DefaultAddr),
		"embedded service: listen address; the API is under /api/v2 (DISBURSE_API_ADDR)")
	fs.StringVar(&c.Service.DB, "db", env("DISBURSE_DB", payoutd.DefaultDB),
		"embedded service: SQLite file path or postgres:// URL (DISBURSE_DB)")
	fs.StringVar(&c.Service.PublicURL, "public-url", env("DISBURSE_PUBLIC_URL", ""),
		"embedded service: origin of the hosted pages; default http://SERVICE-ADDR (DISBURSE_PUBLIC_URL)")
	fs.StringVar(&encryptionKey, "encryption-key", env("DISBURSE_ENCRYPTION_KEY", ""),
		"embedded service: 32-byte key sealing secrets at rest, hex or base64; required with PostgreSQL (DISBURSE_ENCRYPTION_KEY)")
	fs.StringVar(&c.AdminEmail, "admin-email", env("DISBURSE_ADMIN_EMAIL", "admin@example.com"),
		"email of the first admin, created when there is no operator (DISBURSE_ADMIN_EMAIL); its password is DISBURSE_ADMIN_PASSWORD or a random one printed once")
	fs.StringVar(&secure, "secure-cookies", env("DISBURSE_SECURE_COOKIES", "false"),
		"mark the session cookie Secure and send HSTS: set when served over HTTPS (DISBURSE_SECURE_COOKIES)")
	fs.StringVar(&trusted, "trusted-proxies", env("DISBURSE_TRUSTED_PROXIES", ""),
		"comma-separated IPs or CIDRs of reverse proxies whose --proxy-header is believed (DISBURSE_TRUSTED_PROXIES)")
	fs.StringVar(&c.ProxyHeader, "proxy-header", env("DISBURSE_PROXY_HEADER", "X-Forwarded-For"),
		"header in which trusted proxies give the client address (DISBURSE_PROXY_HEADER)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", env("DISBURSE_METRICS_ADDR", ""),
		"internal address serving Prometheus /metrics and pprof, e.g. 127.0.0.1:9091; never a public one; empty = off (DISBURSE_METRICS_ADDR)")
	fs.StringVar(&threshold, "approval-threshold", env("DISBURSE_APPROVAL_THRESHOLD", approvals.Above.Decimal()),
		"a payout, payout link, transfer to a user or bulk file of more than this many dollars waits for a second operator's approval; off = nothing waits (DISBURSE_APPROVAL_THRESHOLD)")
	fs.StringVar(&window, "approval-window", env("DISBURSE_APPROVAL_WINDOW", approvals.Window.String()),
		"the rolling window over which --approval-payee-limit and --approval-operator-limit add up what was sent (DISBURSE_APPROVAL_WINDOW)")
	fs.StringVar(&payeeLimit, "approval-payee-limit", env("DISBURSE_APPROVAL_PAYEE_LIMIT", approvals.PayeeLimit.Decimal()),
		"dollars one payee may be sent in a window before the next request to them waits for approval; off = no limit (DISBURSE_APPROVAL_PAYEE_LIMIT)")
	fs.StringVar(&operatorLimit, "approval-operator-limit", env("DISBURSE_APPROVAL_OPERATOR_LIMIT", approvals.OperatorLimit.Decimal()),
		"dollars one operator may send in a window before their next request waits for approval; off = no limit (DISBURSE_APPROVAL_OPERATOR_LIMIT)")
	fs.StringVar(&approvers, "approver-roles", env("DISBURSE_APPROVER_ROLES", strings.Join(roleNames(approvals.Approvers), ",")),
		"comma-separated roles that may approve held payouts and API payout requests (DISBURSE_APPROVER_ROLES)")
	fs.StringVar(&bearerLinks, "bearer-link-roles", env("DISBURSE_BEARER_LINK_ROLES", strings.Join(roleNames(approvals.BearerLinks), ",")),
		"comma-separated roles that may issue payout links that name nobody and see their URLs, which others see masked (DISBURSE_BEARER_LINK_ROLES)")
	fs.StringVar(&bulkWait, "bulk-batch-wait", env("DISBURSE_BULK_BATCH_WAIT", handlers.DefaultBulkBatchWait.String()),
		"how long a bulk payout waits for a transfer batch to finish before leaving its rows as still running, to check again later (DISBURSE_BULK_BATCH_WAIT)")
	fs.StringVar(&bulkLease, "bulk-lease", env("DISBURSE_BULK_LEASE", handlers.DefaultBulkLease.String()),
		"how long a running bulk payout stays this dashboard's after it last renewed its hold; then another dashboard on the same database takes it over (DISBURSE_BULK_LEASE)")
	fs.StringVar(&bulkRepeats, "bulk-repeat-window", env("DISBURSE_BULK_REPEAT_WINDOW", handlers.DefaultBulkRepeatWindow.String()),
		"how far back a bulk payout file's rows are compared with earlier files' rows (and always back to the start of the UTC day): a row paying what one of those paid, the same payee, amount and method whatever its memo, waits for a second operator to confirm it (DISBURSE_BULK_REPEAT_WINDOW)")
	fs.StringVar(&c.LogFormat, "log-format", env("DISBURSE_LOG_FORMAT", "text"), "log format: text or json (DISBURSE_LOG_FORMAT)")
	if err := fs.Parse(args); err != nil {
		return c, cli.UsageError{Err: err}
	}
	if fs.NArg() > 0 {
		return c, cli.UsageError{Err: fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	c.AdminPassword = getenv("DISBURSE_ADMIN_PASSWORD")

	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("--addr %q: %v", c.Addr, err)
	}
	if c.PublicURL != "" {
		if origin, err := originOf(c.PublicURL); err != nil {
			bad("--public-dashboard-url: %v", err)
		} else {
			c.PublicURL = origin
		}
	}
	if c.APIURL != "" {
		if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("--api-url %q: want an http or https URL", c.APIURL)
		}
		if c.APIClientID == "" || c.APIKey == "" {
			bad("--api-url needs --api-client-id and --api-key")
		}
		if c.HostedURL != "" {
			if origin, err := originOf(c.HostedURL); err != nil {
				bad("--hosted-url: %v", err)
			} else {
				c.HostedURL = origin
			}
		}
	} else {
		if c.APIClientID != "" || c.APIKey != "" || c.AppID != "" || c.HostedURL != "" {
			bad("--api-client-id, --api-key, --app-id and --hosted-url go with --api-url; without it the service is embedded")
		}
		if _, _, err := net.SplitHostPort(c.Service.Addr); err != nil {
			bad("--service-addr %q: %v", c.Service.Addr, err)
		}
		if encryptionKey != "" {
			key, err := payoutd.ParseKey(encryptionKey)
			if err != nil {
				bad("--encryption-key: %v", err)
			}
			c.Service.EncryptionKey = key
		}
		c.Service.TrustedProxies = cli.List(trusted)
	}
	if dashstore.NormalizeEmail(c.AdminEmail) == "" {
		bad("--admin-email is empty")
	}
	if c.AdminPassword != "" {
		if p := web.PasswordProblem(c.AdminPassword); p != "" {
			bad("DISBURSE_ADMIN_PASSWORD: %s", p)
		}
	}
	switch secure {
	case "true", "1", "yes":
		c.Secure = true
	case "false", "0", "no", "":
	default:
		bad("--secure-cookies %q: want true or false", secure)
	}
	c.TrustedProxies = cli.List(trusted) // web.New checks each
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			bad("--metrics-addr %q: %v", c.MetricsAddr, err)
		}
	}
	if threshold != "off" {
		above, err := payouts.ParseDollars(threshold)
		if err != nil || above < 0 {
			bad("--approval-threshold %q: want an amount of dollars like 1000.00, or off", threshold)
		}
		c.Approvals.On, c.Approvals.Above = true, above
	}
	if d, err := time.ParseDuration(window); err != nil || d <= 0 {
		bad("--approval-window %q: want a positive duration like 24h", window)
	} else {
		c.Approvals.Window = d
	}
	for _, l := range []struct {
		flag, value string
		limit       *payouts.Money
	}{{"--approval-payee-limit", payeeLimit, &c.Approvals.PayeeLimit}, {"--approval-operator-limit", operatorLimit, &c.Approvals.OperatorLimit}} {
		if l.value == "off" {
			continue // 0: no limit
		}
		if m, err := payouts.ParseDollars(l.value); err != nil || m <= 0 {
			bad("%s %q: want an amount of dollars more than 0 like 3000.00, or off", l.flag, l.value)
		} else {
			*l.limit = m
		}
	}
	for _, l := range []struct {
		flag, value string
		roles       *[]dashstore.Role
	}{{"--approver-roles", approvers, &c.Approvals.Approvers}, {"--bearer-link-roles", bearerLinks, &c.Approvals.BearerLinks}} {
		*l.roles = nil
		for _, r := range cli.List(l.value) {
			if role := dashstore.Role(r); role.Valid() {
				*l.roles = append(*l.roles, role)
			} else {
				bad("%s: %q is not a role (%s)", l.flag, r, strings.Join(roleNames(dashstore.Roles), ", "))
			}
		}
		if len(*l.roles) == 0 {
			bad("%s is empty: name at least one role", l.flag)
		}
	}
	if d, err := time.ParseDuration(bulkWait); err != nil || d <= 0 {
		bad("--bulk-batch-wait %q: want a positive duration like 10m", bulkWait)
	} else {
		c.BulkBatchWait = d
	}
	if d, err := time.ParseDuration(bulkLease); err != nil || d <= 0 {
		bad("--bulk-lease %q: want a positive duration like 30s", bulkLease)
	} else {
		c.BulkLease = d
	}
	if d, err := time.ParseDuration(bulkRepeats); err != nil || d <= 0 {
		bad("--bulk-repeat-window %q: want a positive duration like 720h", bulkRepeats)
	} else {
		c.BulkRepeatWindow = d
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		bad("--log-format %q: want text or json", c.LogFormat)
	}
	if len(problems) > 0 {
		return c, cli.UsageError{Err: errors.New(strings.Join(problems, "; "))}
	}
	return c, nil
}

// roleNames names roles as flags spell them.
func roleNames(roles []dashstore.Role) []string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return names
}

// originOf returns scheme://host[:port] of an http(s) URL.
func originOf(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http or https URL", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

func (c config) logger(w io.Writer) *slog.Logger {
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
