package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
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
	var c config
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(output)
	var flags cli.Flags[config]
	flags.Register(fs, getenv, dashboardFlags...)
	if err := fs.Parse(args); err != nil {
		return c, cli.UsageError{Err: err}
	}
	if fs.NArg() > 0 {
		return c, cli.UsageError{Err: fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	err := flags.Apply(&c)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if c.APIURL != "" && (c.APIClientID == "" || c.APIKey == "") {
		problems = append(problems, "--api-url needs --api-client-id and --api-key")
	}
	if c.APIURL == "" && (c.APIClientID != "" || c.APIKey != "" || c.AppID != "" || c.HostedURL != "") {
		problems = append(problems, "--api-client-id, --api-key, --app-id and --hosted-url go with --api-url; without it the service is embedded")
	}
	c.AdminPassword = getenv("DISBURSE_ADMIN_PASSWORD")
	if c.AdminPassword != "" {
		if p := web.PasswordProblem(c.AdminPassword); p != "" {
			problems = append(problems, "DISBURSE_ADMIN_PASSWORD: "+p)
		}
	}
	if len(problems) > 0 {
		return c, cli.UsageError{Err: errors.New(strings.Join(problems, "; "))}
	}
	return c, nil
}

// dashboardFlags is the dashboard's table of flags. They are read in this order: the embedded
// service's flags come after --api-url and read it, since they count only without it.
var dashboardFlags = []cli.Flag[config]{
	{Name: "addr", Env: "DISBURSE_DASHBOARD_ADDR", Default: defaultAddr,
		Help: "dashboard listen address (DISBURSE_DASHBOARD_ADDR)",
		Set: func(c *config, v string) error {
			c.Addr = v
			return cli.HostPort(v)
		}},
	{Name: "dashboard-db", Env: "DISBURSE_DASHBOARD_DB", Default: "./data/dashboard.db",
		Help: "the dashboard's database (operators, sessions, audit log): SQLite file path or postgres:// URL (DISBURSE_DASHBOARD_DB)",
		Set:  func(c *config, v string) error { c.DashboardDB = v; return nil }},
	{Name: "public-dashboard-url", Env: "DISBURSE_DASHBOARD_URL",
		Help: "the dashboard's origin as browsers reach it, allowed to frame the hosted pages; default http://ADDR (DISBURSE_DASHBOARD_URL)",
		Set:  origin(func(c *config) *string { return &c.PublicURL })},
	{Name: "api-url", Env: "DISBURSE_API_URL",
		Help: "base URL of a Payout Service to use instead of the embedded one, e.g. https://api.example.com/api (DISBURSE_API_URL)",
		Set: func(c *config, v string) error {
			c.APIURL = v
			if v == "" {
				return nil
			}
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%q: want an http or https URL", v)
			}
			return nil
		}},
	{Name: "api-client-id", Env: "DISBURSE_API_CLIENT_ID",
		Help: "API client id, with --api-url (DISBURSE_API_CLIENT_ID)",
		Set:  func(c *config, v string) error { c.APIClientID = v; return nil }},
	{Name: "api-key", Env: "DISBURSE_API_KEY",
		Help: "API key, with --api-url (DISBURSE_API_KEY)",
		Set:  func(c *config, v string) error { c.APIKey = v; return nil }},
	{Name: "hosted-url", Env: "DISBURSE_HOSTED_URL",
		Help: "origin of the hosted pages (flows) the flow page frames, with --api-url; default the API's origin (DISBURSE_HOSTED_URL)",
		Set:  origin(func(c *config) *string { return &c.HostedURL })},
	{Name: "app-id", Env: "DISBURSE_APP_ID",
		Help: "id of the app, with --api-url, for the app wallet page (DISBURSE_APP_ID)",
		Set:  func(c *config, v string) error { c.AppID = v; return nil }},
	{Name: "service-addr", Env: "DISBURSE_API_ADDR", Default: payoutd.DefaultAddr,
		Help: "embedded service: listen address; the API is under /api/v2 (DISBURSE_API_ADDR)",
		Set: func(c *config, v string) error {
			c.Service.Addr = v
			if c.APIURL != "" {
				return nil
			}
			return cli.HostPort(v)
		}},
	{Name: "db", Env: "DISBURSE_DB", Default: payoutd.DefaultDB,
		Help: "embedded service: SQLite file path or postgres:// URL (DISBURSE_DB)",
		Set:  func(c *config, v string) error { c.Service.DB = v; return nil }},
	{Name: "public-url", Env: "DISBURSE_PUBLIC_URL",
		Help: "embedded service: origin of the hosted pages; default http://SERVICE-ADDR (DISBURSE_PUBLIC_URL)",
		Set:  func(c *config, v string) error { c.Service.PublicURL = v; return nil }},
	{Name: "encryption-key", Env: "DISBURSE_ENCRYPTION_KEY",
		Help: "embedded service: 32-byte key sealing secrets at rest, hex or base64; required with PostgreSQL (DISBURSE_ENCRYPTION_KEY)",
		Set: func(c *config, v string) error {
			if c.APIURL != "" || v == "" {
				return nil
			}
			key, err := payoutd.ParseKey(v)
			if err != nil {
				return fmt.Errorf("refused: %w", err) // never the value: it is a secret
			}
			c.Service.EncryptionKey = key
			return nil
		}},
	{Name: "admin-email", Env: "DISBURSE_ADMIN_EMAIL", Default: "admin@example.com",
		Help: "email of the first admin, created when there is no operator (DISBURSE_ADMIN_EMAIL); its password is DISBURSE_ADMIN_PASSWORD or a random one printed once",
		Set: func(c *config, v string) error {
			c.AdminEmail = v
			if dashstore.NormalizeEmail(v) == "" {
				return errors.New("is empty")
			}
			return nil
		}},
	{Name: "secure-cookies", Env: "DISBURSE_SECURE_COOKIES", Default: "false",
		Help: "mark the session cookie Secure and send HSTS: set when served over HTTPS (DISBURSE_SECURE_COOKIES)",
		Set: func(c *config, v string) error {
			switch v {
			case "true", "1", "yes":
				c.Secure = true
			case "false", "0", "no", "":
			default:
				return fmt.Errorf("%q: want true or false", v)
			}
			return nil
		}},
	{Name: "trusted-proxies", Env: "DISBURSE_TRUSTED_PROXIES",
		Help: "comma-separated IPs or CIDRs of reverse proxies whose --proxy-header is believed (DISBURSE_TRUSTED_PROXIES)",
		Set: func(c *config, v string) error {
			c.TrustedProxies = cli.List(v) // web.New checks each
			if c.APIURL == "" {
				c.Service.TrustedProxies = cli.List(v)
			}
			return nil
		}},
	{Name: "proxy-header", Env: "DISBURSE_PROXY_HEADER", Default: "X-Forwarded-For",
		Help: "header in which trusted proxies give the client address (DISBURSE_PROXY_HEADER)",
		Set:  func(c *config, v string) error { c.ProxyHeader = v; return nil }},
	{Name: "metrics-addr", Env: "DISBURSE_METRICS_ADDR",
		Help: "internal address serving Prometheus /metrics and pprof, e.g. 127.0.0.1:9091; never a public one; empty = off (DISBURSE_METRICS_ADDR)",
		Set: func(c *config, v string) error {
			c.MetricsAddr = v
			if v == "" {
				return nil
			}
			return cli.HostPort(v)
		}},
	{Name: "approval-threshold", Env: "DISBURSE_APPROVAL_THRESHOLD", Default: defaultApprovals.Above.Decimal(),
		Help: "a payout, payout link, transfer to a user or bulk file of more than this many dollars waits for a second operator's approval; off = nothing waits (DISBURSE_APPROVAL_THRESHOLD)",
		Set: func(c *config, v string) error {
			if v == "off" {
				return nil
			}
			above, err := payouts.ParseDollars(v)
			if err != nil || above < 0 {
				return fmt.Errorf("%q: want an amount of dollars like 1000.00, or off", v)
			}
			c.Approvals.On, c.Approvals.Above = true, above
			return nil
		}},
	{Name: "approval-window", Env: "DISBURSE_APPROVAL_WINDOW", Default: defaultApprovals.Window.String(),
		Help: "the rolling window over which --approval-payee-limit and --approval-operator-limit add up what was sent (DISBURSE_APPROVAL_WINDOW)",
		Set:  positive(func(c *config) *time.Duration { return &c.Approvals.Window }, "24h")},
	{Name: "approval-payee-limit", Env: "DISBURSE_APPROVAL_PAYEE_LIMIT", Default: defaultApprovals.PayeeLimit.Decimal(),
		Help: "dollars one payee may be sent in a window before the next request to them waits for approval; off = no limit (DISBURSE_APPROVAL_PAYEE_LIMIT)",
		Set:  limit(func(c *config) *payouts.Money { return &c.Approvals.PayeeLimit })},
	{Name: "approval-operator-limit", Env: "DISBURSE_APPROVAL_OPERATOR_LIMIT", Default: defaultApprovals.OperatorLimit.Decimal(),
		Help: "dollars one operator may send in a window before their next request waits for approval; off = no limit (DISBURSE_APPROVAL_OPERATOR_LIMIT)",
		Set:  limit(func(c *config) *payouts.Money { return &c.Approvals.OperatorLimit })},
	{Name: "approver-roles", Env: "DISBURSE_APPROVER_ROLES", Default: strings.Join(roleNames(defaultApprovals.Approvers), ","),
		Help: "comma-separated roles that may approve held payouts and API payout requests (DISBURSE_APPROVER_ROLES)",
		Set:  roles(func(c *config) *[]dashstore.Role { return &c.Approvals.Approvers })},
	{Name: "bearer-link-roles", Env: "DISBURSE_BEARER_LINK_ROLES", Default: strings.Join(roleNames(defaultApprovals.BearerLinks), ","),
		Help: "comma-separated roles that may issue payout links that name nobody and see their URLs, which others see masked (DISBURSE_BEARER_LINK_ROLES)",
		Set:  roles(func(c *config) *[]dashstore.Role { return &c.Approvals.BearerLinks })},
	{Name: "bulk-batch-wait", Env: "DISBURSE_BULK_BATCH_WAIT", Default: handlers.DefaultBulkBatchWait.String(),
		Help: "how long a bulk payout waits for a transfer batch to finish before leaving its rows as still running, to check again later (DISBURSE_BULK_BATCH_WAIT)",
		Set:  positive(func(c *config) *time.Duration { return &c.BulkBatchWait }, "10m")},
	{Name: "bulk-lease", Env: "DISBURSE_BULK_LEASE", Default: handlers.DefaultBulkLease.String(),
		Help: "how long a running bulk payout stays this dashboard's after it last renewed its hold; then another dashboard on the same database takes it over (DISBURSE_BULK_LEASE)",
		Set:  positive(func(c *config) *time.Duration { return &c.BulkLease }, "30s")},
	{Name: "bulk-repeat-window", Env: "DISBURSE_BULK_REPEAT_WINDOW", Default: handlers.DefaultBulkRepeatWindow.String(),
		Help: "how far back a bulk payout file's rows are compared with earlier files' rows (and always back to the start of the UTC day): a row paying what one of those paid, the same payee, amount and method whatever its memo, waits for a second operator to confirm it (DISBURSE_BULK_REPEAT_WINDOW)",
		Set:  positive(func(c *config) *time.Duration { return &c.BulkRepeatWindow }, "720h")},
	{Name: "log-format", Env: "DISBURSE_LOG_FORMAT", Default: "text",
		Help: "log format: text or json (DISBURSE_LOG_FORMAT)",
		Set: func(c *config, v string) error {
			c.LogFormat = v
			if v != "text" && v != "json" {
				return fmt.Errorf("%q: want text or json", v)
			}
			return nil
		}},
}

// defaultApprovals gives the approval flags their defaults.
var defaultApprovals = dashstore.DefaultApprovalPolicy()

// origin reads an http(s) URL's origin into the field field returns; empty leaves it empty.
func origin(field func(c *config) *string) func(c *config, v string) error {
	return func(c *config, v string) error {
		if v == "" {
			return nil
		}
		o, err := originOf(v)
		if err != nil {
			return err
		}
		*field(c) = o
		return nil
	}
}

// positive reads a positive duration, like example, into the field field returns.
func positive(field func(c *config) *time.Duration, example string) func(c *config, v string) error {
	return func(c *config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q: want a positive duration like %s", v, example)
		}
		*field(c) = d
		return nil
	}
}

// limit reads a positive amount of dollars, or off for none (0), into the field field returns.
func limit(field func(c *config) *payouts.Money) func(c *config, v string) error {
	return func(c *config, v string) error {
		if v == "off" {
			return nil // 0: no limit
		}
		m, err := payouts.ParseDollars(v)
		if err != nil || m <= 0 {
			return fmt.Errorf("%q: want an amount of dollars more than 0 like 3000.00, or off", v)
		}
		*field(c) = m
		return nil
	}
}

// roles reads a comma-separated list of at least one role into the field field returns.
func roles(field func(c *config) *[]dashstore.Role) func(c *config, v string) error {
	return func(c *config, v string) error {
		var out []dashstore.Role
		for _, r := range cli.List(v) {
			role := dashstore.Role(r)
			if !role.Valid() {
				return fmt.Errorf("%q is not a role (%s)", r, strings.Join(roleNames(dashstore.Roles), ", "))
			}
			out = append(out, role)
		}
		if len(out) == 0 {
			return errors.New("is empty: name at least one role")
		}
		*field(c) = out
		return nil
	}
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
