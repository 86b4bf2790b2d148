package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
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
}

// flags are the raw values of the command line and environment, before validation.
type flags struct {
	addr, db, publicURL, encryptionKey string
	bodyLimit, trustedProxies          string
	frameAncestors, shutdownTimeout    string
	sandboxInbox, fees, thresholds1099 string
	logFormat, logLevel                string
	workerInterval                     string
	sandboxDelay, sandboxACHDelay      string
	railLease                          string
	webhookLease                       string
	dbLockTimeout, dbStatementTimeout  string
	metricsAddr                        string
	ledgerCheckInterval, retention     string
	rails                              string
	messages, smsCountries             string
	// getenv reads the providers' credentials, which are never flags (they would show in ps).
	getenv func(string) string
}

// register adds the flags every subcommand shares (the database, its key and logging); serve
// adds the HTTP ones. Defaults come from DISBURSE_* variables, so a flag given wins over them.
func (f *flags) register(fs *flag.FlagSet, getenv func(string) string, serve bool) {
	env := cli.Env(getenv)
	f.getenv = getenv
	fs.StringVar(&f.db, "db", env("DISBURSE_DB", payoutd.DefaultDB),
		"SQLite file path or postgres:// URL (DISBURSE_DB)")
	fs.StringVar(&f.encryptionKey, "encryption-key", env("DISBURSE_ENCRYPTION_KEY", ""),
		"32-byte key sealing secrets at rest, hex or base64 (DISBURSE_ENCRYPTION_KEY); required with PostgreSQL; "+
			"on SQLite, when absent, the one in <db>.key, generated with a new database only; a key that does not open the database is refused")
	fs.StringVar(&f.logFormat, "log-format", env("DISBURSE_LOG_FORMAT", "text"),
		"log format: text (development) or json (production) (DISBURSE_LOG_FORMAT)")
	fs.StringVar(&f.logLevel, "log-level", env("DISBURSE_LOG_LEVEL", "info"),
		"log level: debug, info, warn or error (DISBURSE_LOG_LEVEL)")
	fs.StringVar(&f.dbLockTimeout, "db-lock-timeout", env("DISBURSE_DB_LOCK_TIMEOUT", sqldb.DefaultLockTimeout.String()),
		"PostgreSQL: how long a statement waits for a row lock before it fails (DISBURSE_DB_LOCK_TIMEOUT)")
	fs.StringVar(&f.dbStatementTimeout, "db-statement-timeout", env("DISBURSE_DB_STATEMENT_TIMEOUT", sqldb.DefaultStatementTimeout.String()),
		"PostgreSQL: how long a statement may run before it fails (DISBURSE_DB_STATEMENT_TIMEOUT)")
	if !serve {
		return
	}
	fs.StringVar(&f.addr, "addr", env("DISBURSE_API_ADDR", payoutd.DefaultAddr),
		"listen address; the API is under /api/v2 (DISBURSE_API_ADDR)")
	fs.StringVar(&f.publicURL, "public-url", env("DISBURSE_PUBLIC_URL", ""),
		"origin of the hosted pages, used in payout link and flow links; default http://ADDR (DISBURSE_PUBLIC_URL)")
	fs.StringVar(&f.bodyLimit, "body-limit", env("DISBURSE_BODY_LIMIT", strconv.Itoa(api.DefaultBodyLimit)),
		"largest request body: bytes, or a number with KiB or MiB (DISBURSE_BODY_LIMIT)")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", env("DISBURSE_TRUSTED_PROXIES", ""),
		"comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For is believed (DISBURSE_TRUSTED_PROXIES)")
	fs.StringVar(&f.frameAncestors, "frame-ancestors", env("DISBURSE_FRAME_ANCESTORS", ""),
		"comma-separated origins allowed to embed the hosted pages in an iframe (DISBURSE_FRAME_ANCESTORS)")
	fs.StringVar(&f.fees, "fees", env("DISBURSE_FEES", ""),
		"payout fee per platform in dollars, e.g. paypal=0.25,venmo=0.25,cash_app=0.25,ach=0; unlisted platforms keep the default (DISBURSE_FEES)")
	fs.StringVar(&f.thresholds1099, "thresholds-1099", env("DISBURSE_THRESHOLDS_1099", ""),
		"1099 threshold per calendar year in dollars, e.g. 2025=600,2026=2000; later years use the latest (DISBURSE_THRESHOLDS_1099)")
	fs.StringVar(&f.sandboxInbox, "sandbox-inbox", env("DISBURSE_SANDBOX_INBOX", "on"),
		"sandbox mode: each app reads its kept messages at GET /v2/sandbox/messages, and flows may redirect to http://localhost; on or off; turn it off where real messages are sent (DISBURSE_SANDBOX_INBOX)")
	fs.StringVar(&f.workerInterval, "worker-interval", env("DISBURSE_WORKER_INTERVAL", "1s"),
		"how often the worker settles due payouts and delivers payout links (DISBURSE_WORKER_INTERVAL)")
	fs.StringVar(&f.sandboxDelay, "sandbox-delay", env("DISBURSE_SANDBOX_DELAY", "5s"),
		"how long sandbox PayPal, Venmo and Cash App payouts take to settle (DISBURSE_SANDBOX_DELAY)")
	fs.StringVar(&f.sandboxACHDelay, "sandbox-ach-delay", env("DISBURSE_SANDBOX_ACH_DELAY", "20s"),
		"how long sandbox ACH payouts take to settle (DISBURSE_SANDBOX_ACH_DELAY)")
	f.registerRails(fs, getenv)
	fs.StringVar(&f.messages, "messages", env("DISBURSE_MESSAGES", ""),
		"the provider of each channel's messages (payout links, codes), e.g. email=smtp,sms=twilio; unlisted channels stay on the sandbox inbox; smtp reads DISBURSE_SMTP_URL, DISBURSE_EMAIL_FROM and DISBURSE_EMAIL_REPLY_TO; twilio reads TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID, and TWILIO_API_BASE (DISBURSE_MESSAGES)")
	fs.StringVar(&f.smsCountries, "sms-countries", env("DISBURSE_SMS_COUNTRIES", ""),
		"calling codes of the countries texts go to, e.g. 1,44; required with sms=twilio (DISBURSE_SMS_COUNTRIES)")
	fs.StringVar(&f.railLease, "rail-lease", env("DISBURSE_RAIL_LEASE", "1m"),
		"how long a worker owns a payout it is handing to a rail before another worker may take it over (DISBURSE_RAIL_LEASE)")
	fs.StringVar(&f.webhookLease, "webhook-lease", env("DISBURSE_WEBHOOK_LEASE", "1m"),
		"how long a worker holds the webhook deliveries it is sending before another worker may send them (DISBURSE_WEBHOOK_LEASE)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", env("DISBURSE_METRICS_ADDR", ""),
		"internal address serving Prometheus /metrics and pprof, e.g. 127.0.0.1:9090; never a public one; empty = off (DISBURSE_METRICS_ADDR)")
	fs.StringVar(&f.ledgerCheckInterval, "ledger-check-interval", env("DISBURSE_LEDGER_CHECK_INTERVAL", payoutd.DefaultLedgerCheckInterval.String()),
		"how often the running service checks every ledger's invariants, as payoutd check does, or off (DISBURSE_LEDGER_CHECK_INTERVAL)")
	fs.StringVar(&f.retention, "retention", env("DISBURSE_RETENTION", "90d"),
		"how long events, webhook deliveries and their attempts are kept once delivered or given up, in days (90d) or as a duration, or off to keep them all; pruned hourly (DISBURSE_RETENTION)")
	fs.StringVar(&f.shutdownTimeout, "shutdown-timeout", env("DISBURSE_SHUTDOWN_TIMEOUT", payoutd.DefaultShutdownTimeout.String()),
		"how long requests in flight may finish on SIGINT or SIGTERM (DISBURSE_SHUTDOWN_TIMEOUT)")
}

// registerRails adds --rails, which serve and reconcile share.
func (f *flags) registerRails(fs *flag.FlagSet, getenv func(string) string) {
	env := cli.Env(getenv)
	fs.StringVar(&f.rails, "rails", env("DISBURSE_RAILS", ""),
		"the rail of each platform, e.g. paypal=paypal,venmo=paypal,ach=stripe; unlisted platforms stay on the sandbox; paypal reads PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_WEBHOOK_ID and PAYPAL_API_BASE; stripe reads STRIPE_API_KEY, STRIPE_FINANCIAL_ACCOUNT, STRIPE_WEBHOOK_SECRET, STRIPE_STATEMENT_DESCRIPTOR and STRIPE_API_BASE; cash_app has no public payouts API (DISBURSE_RAILS)")
}

// config validates the values and builds the configuration.
func (f *flags) config() (config, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	cfg := config{service: payoutd.Config{
		Addr:           f.addr,
		DB:             strings.TrimSpace(f.db),
		PublicURL:      strings.TrimRight(f.publicURL, "/"),
		TrustedProxies: cli.List(f.trustedProxies),
		FrameAncestors: cli.List(f.frameAncestors),
	}}
	if cfg.service.DB == "" {
		bad("--db: must name a SQLite file or a postgres:// URL")
	}
	fees, err := parseAmounts(f.fees, func(k string) bool { return payouts.Platform(k).Valid() })
	if err != nil {
		bad("--fees: %v", err)
	}
	for p, fee := range fees {
		if cfg.service.Fees == nil {
			cfg.service.Fees = service.DefaultFees()
		}
		cfg.service.Fees[payouts.Platform(p)] = fee
	}
	thresholds, err := parseAmounts(f.thresholds1099, func(k string) bool {
		y, err := strconv.Atoi(k)
		return err == nil && y >= 2000 && y <= 2200
	})
	if err != nil {
		bad("--thresholds-1099: %v", err)
	}
	for y, amount := range thresholds {
		if cfg.service.Thresholds1099 == nil {
			cfg.service.Thresholds1099 = map[int]payouts.Money{}
		}
		year, _ := strconv.Atoi(y)
		cfg.service.Thresholds1099[year] = amount
	}
	if f.rails != "" {
		providers, err := parseRails(f.rails, f.getenv)
		if err != nil {
			bad("--rails: %v", err)
		}
		cfg.service.Providers = providers
	}
	if f.messages != "" {
		providers, err := parseMessages(f.messages, f.getenv)
		if err != nil {
			bad("--messages: %v", err)
		}
		cfg.service.Messages = providers
	}
	countries, err := parseCountries(f.smsCountries)
	if err != nil {
		bad("--sms-countries: %v", err)
	}
	cfg.service.SMSCountries = countries
	for _, p := range cfg.service.Messages {
		if slices.Contains(p.Channels, "sms") && len(countries) == 0 {
			bad("--messages sms=%s: name the countries texts go to with --sms-countries (SMS pumping costs money)", p.Name)
		}
	}
	switch f.sandboxInbox {
	case "on", "":
	case "off":
		cfg.service.HideSandboxInbox = true
	default:
		bad("--sandbox-inbox %q: want on or off", f.sandboxInbox)
	}
	if f.addr != "" {
		if _, _, err := net.SplitHostPort(f.addr); err != nil {
			bad("--addr %q: want host:port", f.addr)
		}
	}
	cfg.metricsAddr = f.metricsAddr
	if f.metricsAddr != "" {
		if _, _, err := net.SplitHostPort(f.metricsAddr); err != nil {
			bad("--metrics-addr %q: want host:port", f.metricsAddr)
		}
	}
	if u := cfg.service.PublicURL; u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			bad("--public-url %q: want an http:// or https:// origin", u)
		}
	}
	if f.encryptionKey != "" {
		key, err := payoutd.ParseKey(f.encryptionKey)
		if err != nil {
			bad("--encryption-key: %v", err)
		}
		cfg.service.EncryptionKey = key
	}
	if f.bodyLimit != "" {
		n, err := parseSize(f.bodyLimit)
		if err != nil {
			bad("--body-limit %q: %v", f.bodyLimit, err)
		}
		cfg.service.BodyLimit = n
	}
	for _, p := range cfg.service.TrustedProxies {
		if _, err := netip.ParseAddr(p); err != nil {
			if _, err := netip.ParsePrefix(p); err != nil {
				bad("--trusted-proxies: %q is not an IP or CIDR", p)
			}
		}
	}
	for _, d := range []struct {
		name, value string
		into        *time.Duration
	}{
		{"--worker-interval", f.workerInterval, &cfg.service.WorkerInterval},
		{"--sandbox-delay", f.sandboxDelay, &cfg.service.SandboxDelay},
		{"--sandbox-ach-delay", f.sandboxACHDelay, &cfg.service.SandboxACHDelay},
		{"--rail-lease", f.railLease, &cfg.service.RailLease},
		{"--webhook-lease", f.webhookLease, &cfg.service.WebhookLease},
		{"--db-lock-timeout", f.dbLockTimeout, &cfg.service.DBTimeouts.Lock},
		{"--db-statement-timeout", f.dbStatementTimeout, &cfg.service.DBTimeouts.Statement},
		{"--shutdown-timeout", f.shutdownTimeout, &cfg.service.ShutdownTimeout},
	} {
		if d.value == "" {
			continue
		}
		v, err := time.ParseDuration(d.value)
		if err != nil || v <= 0 {
			bad("%s %q: want a positive duration like 1s", d.name, d.value)
		}
		*d.into = v
	}
	switch f.ledgerCheckInterval {
	case "":
	case "off":
		cfg.service.LedgerCheckInterval = -1 // payoutd.Config's "never"
	default:
		v, err := time.ParseDuration(f.ledgerCheckInterval)
		if err != nil || v <= 0 {
			bad("--ledger-check-interval %q: want a positive duration like 1h, or off", f.ledgerCheckInterval)
		}
		cfg.service.LedgerCheckInterval = v
	}
	if f.retention == "off" {
		cfg.service.Retention = -1 // payoutd.Config's "keep everything"
	} else if f.retention != "" {
		v, err := parseDays(f.retention)
		if err != nil {
			bad("--retention %q: want days like 90d, a duration like 720h, or off", f.retention)
		}
		cfg.service.Retention = v
	}
	switch f.logFormat {
	case "text", "json":
		cfg.logFormat = f.logFormat
	default:
		bad("--log-format %q: want text or json", f.logFormat)
	}
	if err := cfg.logLevel.UnmarshalText([]byte(f.logLevel)); err != nil {
		bad("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	if len(problems) > 0 {
		return config{}, cli.UsageError{Err: errors.New(strings.Join(problems, "; "))}
	}
	return cfg, nil
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
