package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/api"
	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// config is everything payoutd was told, validated.
type config struct {
	service     payoutd.Config
	metricsAddr string // internal address of /metrics and pprof; empty = off
	logFormat   string // "text" or "json"
	logLevel    slog.Level
	gcPercent   int // the collector's target serve sets; 0: GOGC is set, the runtime's own
}

// defaultGCPercent is the collector's target unless GOGC says otherwise: a request's garbage is
// short-lived, and at Go's default (100) the collector took about a twentieth of payoutd's CPU
// at 64 clients; four times the headroom collects a quarter as often for about 20 MB more
// memory at 64 clients (BENCHMARKS.md, "Issue 50 speed").
const defaultGCPercent = 400

// flags are payoutd's flags registered on a command line, read into a config by config.
type flags struct {
	cli.Flags[config]
	// logOut is where the providers' clients log, in the log format (nil: nowhere); serve's
	// output.
	logOut io.Writer
}

// register adds the flags every subcommand shares (the database, its key and logging); serve
// adds the HTTP ones and --rails. Defaults come from DISBURSE_* variables, so a flag given wins
// over them.
func (f *flags) register(fs *flag.FlagSet, getenv func(string) string, serve bool) {
	f.Register(fs, getenv, sharedFlags...)
	if serve {
		f.Register(fs, getenv, serveFlags...)
		f.registerRails(fs, getenv)
		f.registerMessages(fs, getenv)
		f.registerSanctions(fs, getenv, true)
	}
}

// registerRails adds --rails, which serve and reconcile share. Its providers read their
// credentials from getenv: they are never flags (they would show in ps).
func (f *flags) registerRails(fs *flag.FlagSet, getenv func(string) string) {
	f.Register(fs, getenv, cli.Flag[config]{Name: "rails", Env: "DISBURSE_RAILS",
		Help: "the rail of each platform, e.g. paypal=paypal,venmo=paypal,ach=stripe,cash_app=off; off refuses the platform's payouts; unlisted platforms stay on the sandbox, which --sandbox-inbox off refuses; paypal reads PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_WEBHOOK_ID and PAYPAL_API_BASE; stripe reads STRIPE_API_KEY, STRIPE_FINANCIAL_ACCOUNT, STRIPE_WEBHOOK_SECRET, STRIPE_STATEMENT_DESCRIPTOR and STRIPE_API_BASE; cash_app has no public payouts API (DISBURSE_RAILS)",
		Set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			out := f.logOut
			if out == nil {
				out = io.Discard
			}
			// The logging rows come first (sharedFlags), so c's log format is read by now.
			providers, err := parseRails(v, getenv, c.logger(out))
			c.service.Providers = providers
			if err != nil {
				return fmt.Errorf("refused: %w", err)
			}
			return nil
		}})
}

// registerMessages adds --messages and --sms-countries. Its providers read their credentials
// from getenv: they are never flags (they would show in ps).
func (f *flags) registerMessages(fs *flag.FlagSet, getenv func(string) string) {
	f.Register(fs, getenv,
		cli.Flag[config]{Name: "messages", Env: "DISBURSE_MESSAGES",
			Help: "the provider of each channel's messages (payout links, codes), e.g. email=smtp,sms=twilio; unlisted channels stay on the sandbox inbox; smtp reads DISBURSE_SMTP_URL, DISBURSE_EMAIL_FROM and DISBURSE_EMAIL_REPLY_TO; twilio reads TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID, and TWILIO_API_BASE (DISBURSE_MESSAGES)",
			Set: func(c *config, v string) error {
				if v == "" {
					return nil
				}
				providers, err := parseMessages(v, getenv)
				c.service.Messages = providers
				return err
			}},
		cli.Flag[config]{Name: "sms-countries", Env: "DISBURSE_SMS_COUNTRIES",
			Help: "calling codes of the countries texts go to, e.g. 1,44; required with sms=twilio (DISBURSE_SMS_COUNTRIES)",
			Set: func(c *config, v string) error {
				countries, err := parseCountries(v)
				c.service.SMSCountries = countries
				return err
			}})
}

// config reads the registered flags' values and validates them.
func (f *flags) config() (config, error) {
	var cfg config
	if err := f.Apply(&cfg); err != nil {
		return config{}, err
	}
	// Outside sandbox mode a payout must never be "paid" by the sandbox rail's pretence.
	if left := onSandbox(cfg.service.Providers); cfg.service.HideSandboxInbox && len(left) > 0 {
		return config{}, cli.UsageError{Err: fmt.Errorf("--sandbox-inbox off: %s would pay through the sandbox rail; give each its provider or turn it off with --rails (DISBURSE_RAILS), e.g. %s=off",
			strings.Join(left, ", "), left[0])}
	}
	for _, p := range cfg.service.Messages {
		if slices.Contains(p.Channels, "sms") && len(cfg.service.SMSCountries) == 0 {
			return config{}, cli.UsageError{Err: fmt.Errorf("--messages sms=%s: name the countries texts go to with --sms-countries (SMS pumping costs money)", p.Name)}
		}
	}
	return cfg, nil
}

// sharedFlags are the flags of every subcommand: the database, its key and logging.
var sharedFlags = []cli.Flag[config]{
	{Name: "db", Env: "DISBURSE_DB", Default: payoutd.DefaultDB,
		Help: "SQLite file path or postgres:// URL (DISBURSE_DB)",
		Set: func(c *config, v string) error {
			c.service.DB = strings.TrimSpace(v)
			if c.service.DB == "" {
				return errors.New("is empty: name a SQLite file or a postgres:// URL")
			}
			return nil
		}},
	{Name: "encryption-key", Env: "DISBURSE_ENCRYPTION_KEY",
		Help: "32-byte key sealing secrets at rest, hex or base64 (DISBURSE_ENCRYPTION_KEY); required with PostgreSQL; " +
			"on SQLite, when absent, the one in <db>.key, generated with a new database only; a key that does not open the database is refused",
		Set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			key, err := payoutd.ParseKey(v)
			if err != nil {
				return fmt.Errorf("refused: %w", err) // never the value: it is a secret
			}
			c.service.EncryptionKey = key
			return nil
		}},
	{Name: "log-format", Env: "DISBURSE_LOG_FORMAT", Default: "text",
		Help: "log format: text (development) or json (production) (DISBURSE_LOG_FORMAT)",
		Set: func(c *config, v string) error {
			if v != "text" && v != "json" {
				return fmt.Errorf("%q: want text or json", v)
			}
			c.logFormat = v
			return nil
		}},
	{Name: "log-level", Env: "DISBURSE_LOG_LEVEL", Default: "info",
		Help: "log level: debug, info, warn or error (DISBURSE_LOG_LEVEL)",
		Set: func(c *config, v string) error {
			if err := c.logLevel.UnmarshalText([]byte(v)); err != nil {
				return fmt.Errorf("%q: want debug, info, warn or error", v)
			}
			return nil
		}},
	{Name: "db-lock-timeout", Env: "DISBURSE_DB_LOCK_TIMEOUT", Default: sqldb.DefaultLockTimeout.String(),
		Help: "PostgreSQL: how long a statement waits for a row lock before it fails (DISBURSE_DB_LOCK_TIMEOUT)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.DBTimeouts.Lock })},
	{Name: "db-statement-timeout", Env: "DISBURSE_DB_STATEMENT_TIMEOUT", Default: sqldb.DefaultStatementTimeout.String(),
		Help: "PostgreSQL: how long a statement may run before it fails (DISBURSE_DB_STATEMENT_TIMEOUT)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.DBTimeouts.Statement })},
}

// serveFlags are the flags of the service itself.
var serveFlags = []cli.Flag[config]{
	{Name: "addr", Env: "DISBURSE_API_ADDR", Default: payoutd.DefaultAddr,
		Help: "listen address; the API is under /api/v2 (DISBURSE_API_ADDR)",
		Set: func(c *config, v string) error {
			c.service.Addr = v
			return cli.HostPort(v)
		}},
	{Name: "public-url", Env: "DISBURSE_PUBLIC_URL",
		Help: "origin of the hosted pages, used in payout link and flow links; default http://ADDR (DISBURSE_PUBLIC_URL)",
		Set: func(c *config, v string) error {
			c.service.PublicURL = strings.TrimRight(v, "/")
			if u := c.service.PublicURL; u != "" {
				if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
					return fmt.Errorf("%q: want an http:// or https:// origin", u)
				}
			}
			return nil
		}},
	{Name: "body-limit", Env: "DISBURSE_BODY_LIMIT", Default: strconv.Itoa(api.DefaultBodyLimit),
		Help: "largest request body: bytes, or a number with KiB or MiB (DISBURSE_BODY_LIMIT)",
		Set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			n, err := parseSize(v)
			if err != nil {
				return fmt.Errorf("%q: %w", v, err)
			}
			c.service.BodyLimit = n
			return nil
		}},
	{Name: "trusted-proxies", Env: "DISBURSE_TRUSTED_PROXIES",
		Help: "comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For is believed (DISBURSE_TRUSTED_PROXIES)",
		Set: func(c *config, v string) error {
			c.service.TrustedProxies = cli.List(v)
			for _, p := range c.service.TrustedProxies {
				if _, err := netip.ParseAddr(p); err != nil {
					if _, err := netip.ParsePrefix(p); err != nil {
						return fmt.Errorf("%q: not an IP or CIDR", p)
					}
				}
			}
			return nil
		}},
	{Name: "frame-ancestors", Env: "DISBURSE_FRAME_ANCESTORS",
		Help: "comma-separated origins allowed to embed the hosted pages in an iframe (DISBURSE_FRAME_ANCESTORS)",
		Set: func(c *config, v string) error {
			c.service.FrameAncestors = cli.List(v)
			return nil
		}},
	{Name: "fees", Env: "DISBURSE_FEES",
		Help: "payout fee per platform in dollars, e.g. paypal=0.25,venmo=0.25,cash_app=0.25,ach=0; unlisted platforms keep the default (DISBURSE_FEES)",
		Set: func(c *config, v string) error {
			fees, err := parseAmounts(v, func(k string) bool { return payouts.Platform(k).Valid() })
			if err != nil {
				return err
			}
			for p, fee := range fees {
				if c.service.Fees == nil {
					c.service.Fees = service.DefaultFees()
				}
				c.service.Fees[payouts.Platform(p)] = fee
			}
			return nil
		}},
	{Name: "thresholds-1099", Env: "DISBURSE_THRESHOLDS_1099",
		Help: "1099 threshold per calendar year in dollars, e.g. 2025=600,2026=2000; later years use the latest (DISBURSE_THRESHOLDS_1099)",
		Set: func(c *config, v string) error {
			thresholds, err := parseAmounts(v, func(k string) bool {
				y, err := strconv.Atoi(k)
				return err == nil && y >= 2000 && y <= 2200
			})
			if err != nil {
				return err
			}
			for y, amount := range thresholds {
				if c.service.Thresholds1099 == nil {
					c.service.Thresholds1099 = map[int]payouts.Money{}
				}
				year, _ := strconv.Atoi(y)
				c.service.Thresholds1099[year] = amount
			}
			return nil
		}},
	{Name: "iris-tcc", Env: "DISBURSE_IRIS_TCC",
		Help: "the payer's IRIS Transmitter Control Code, 5 characters starting with D, required to export the 1099-NEC file for the IRS (DISBURSE_IRIS_TCC)",
		Set: func(c *config, v string) error {
			c.service.IRISTCC = strings.ToUpper(strings.TrimSpace(v))
			return nil
		}},
	{Name: "sandbox-inbox", Env: "DISBURSE_SANDBOX_INBOX", Default: "on",
		Help: "sandbox mode: each app reads its kept messages at GET /v2/sandbox/messages, and flows may redirect to http://localhost; on or off; turn it off where real messages are sent (DISBURSE_SANDBOX_INBOX)",
		Set: func(c *config, v string) error {
			switch v {
			case "on", "":
			case "off":
				c.service.HideSandboxInbox = true
			default:
				return fmt.Errorf("%q: want on or off", v)
			}
			return nil
		}},
	{Name: "worker-interval", Env: "DISBURSE_WORKER_INTERVAL", Default: "1s",
		Help: "how often the worker settles due payouts and delivers payout links (DISBURSE_WORKER_INTERVAL)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.WorkerInterval })},
	{Name: "sandbox-delay", Env: "DISBURSE_SANDBOX_DELAY", Default: "5s",
		Help: "how long sandbox PayPal, Venmo and Cash App payouts take to settle (DISBURSE_SANDBOX_DELAY)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.SandboxDelay })},
	{Name: "sandbox-ach-delay", Env: "DISBURSE_SANDBOX_ACH_DELAY", Default: "20s",
		Help: "how long sandbox ACH payouts take to settle (DISBURSE_SANDBOX_ACH_DELAY)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.SandboxACHDelay })},
	{Name: "rail-lease", Env: "DISBURSE_RAIL_LEASE", Default: "1m",
		Help: "how long a worker owns a payout it is handing to a rail before another worker may take it over (DISBURSE_RAIL_LEASE)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.RailLease })},
	{Name: "webhook-lease", Env: "DISBURSE_WEBHOOK_LEASE", Default: "1m",
		Help: "how long a worker holds the webhook deliveries it is sending before another worker may send them (DISBURSE_WEBHOOK_LEASE)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.WebhookLease })},
	{Name: "metrics-addr", Env: "DISBURSE_METRICS_ADDR",
		Help: "internal address serving Prometheus /metrics and pprof, e.g. 127.0.0.1:9090; never a public one; empty = off (DISBURSE_METRICS_ADDR)",
		Set: func(c *config, v string) error {
			c.metricsAddr = v
			if v == "" {
				return nil
			}
			return cli.HostPort(v)
		}},
	{Name: "ledger-check-interval", Env: "DISBURSE_LEDGER_CHECK_INTERVAL", Default: payoutd.DefaultLedgerCheckInterval.String(),
		Help: "how often the running service checks every ledger's invariants, as payoutd check does, or off (DISBURSE_LEDGER_CHECK_INTERVAL)",
		Set: func(c *config, v string) error {
			switch v {
			case "":
			case "off":
				c.service.LedgerCheckInterval = -1 // payoutd.Config's "never"
			default:
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return fmt.Errorf("%q: want a positive duration like 1h, or off", v)
				}
				c.service.LedgerCheckInterval = d
			}
			return nil
		}},
	{Name: "retention", Env: "DISBURSE_RETENTION", Default: "90d",
		Help: "how long events, webhook deliveries and their attempts, and outbox messages are kept once delivered or given up, in days (90d) or as a duration, or off to keep them all; pruned hourly (DISBURSE_RETENTION)",
		Set: func(c *config, v string) error {
			switch v {
			case "":
			case "off":
				c.service.Retention = -1 // payoutd.Config's "keep everything"
			default:
				d, err := parseDays(v)
				if err != nil {
					return fmt.Errorf("%q: want days like 90d, a duration like 720h, or off", v)
				}
				c.service.Retention = d
			}
			return nil
		}},
	{Name: "shutdown-timeout", Env: "DISBURSE_SHUTDOWN_TIMEOUT", Default: payoutd.DefaultShutdownTimeout.String(),
		Help: "how long requests in flight may finish on SIGINT or SIGTERM (DISBURSE_SHUTDOWN_TIMEOUT)",
		Set:  duration(func(c *config) *time.Duration { return &c.service.ShutdownTimeout })},
}

// duration reads a positive duration into the field of the config that field returns; an empty
// value leaves the field zero, the service's default.
func duration(field func(c *config) *time.Duration) func(c *config, v string) error {
	return func(c *config, v string) error {
		if v == "" {
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q: want a positive duration like 1s", v)
		}
		*field(c) = d
		return nil
	}
}

// logger writes to w in the configured format.
func (c config) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.logLevel}
	if c.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// parseAmounts reads "key=dollars,key=dollars" into cents per key, refusing keys valid rejects
// and negative amounts.
func parseAmounts(s string, valid func(string) bool) (map[string]payouts.Money, error) {
	out := map[string]payouts.Money{}
	for _, pair := range cli.List(s) {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || !valid(k) {
			return nil, fmt.Errorf("%q: want name=amount with a known name", pair)
		}
		m, err := payouts.ParseDollars(v)
		if err != nil || m < 0 {
			return nil, fmt.Errorf("%q: want a non-negative amount in dollars", pair)
		}
		out[k] = m
	}
	return out, nil
}

// parseDays reads a positive number of days (90d) or a Go duration (720h).
func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 || days > 100*365 {
			return 0, errors.New("want a positive number of days")
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return 0, errors.New("want a positive duration")
	}
	return v, nil
}

// parseSize reads a byte count: 1048576, 512KiB, 1MiB.
func parseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	mult := 1
	for suffix, m := range map[string]int{"KiB": 1 << 10, "MiB": 1 << 20} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = strings.TrimSpace(n), m
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > (1<<30)/mult {
		return 0, errors.New("want a positive size up to 1GiB, in bytes or with KiB or MiB")
	}
	return n * mult, nil
}

// parseArgs parses args with fs, letting flags come before, between or after the positional
// arguments (payoutd apps create NAME --json), and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
