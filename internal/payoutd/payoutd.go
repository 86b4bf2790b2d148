// Package payoutd wires the Payout Service process: store -> service -> the /v2 API (under /api)
// and the hosted pages (under /), in one Fiber app. cmd/payoutd runs it alone, cmd/dashboard
// embeds it when no API URL is configured, and tests start it in-process.
//
// Secrets at rest (TINs, account numbers) are sealed with Config.EncryptionKey. When none is
// configured and the database is SQLite, a key is generated with a new database and kept in a
// 0600 file beside it, KeyFile(db) ("<db>.key"): keep it with the database, since the sealed data
// cannot be read without it. PostgreSQL requires a configured key. New refuses a key that does
// not open the database's check value (service.VerifyKey).
package payoutd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/api"
	"github.com/disburse/disburse/internal/hosted"
	"github.com/disburse/disburse/internal/httpserve"
	"github.com/disburse/disburse/internal/metrics"
	"github.com/disburse/disburse/internal/notify"
	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/webhook"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/static"
)

// Defaults of Config.
const (
	DefaultAddr            = "127.0.0.1:8081"
	DefaultDB              = "./data/disburse.db"
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultLedgerCheckInterval is how often a running payoutd checks the ledgers: the check
	// reads every account and posting, so it runs seldom.
	DefaultLedgerCheckInterval = time.Hour
	// DefaultRetention keeps events and webhook attempts for 90 days.
	DefaultRetention = 90 * 24 * time.Hour
	// PruneInterval is how often a running payoutd deletes what is past its retention.
	PruneInterval = time.Hour
)

// Config is what the Payout Service process needs, parsed once by cmd/* and passed down.
type Config struct {
	// Addr is where ListenAndServe listens.
	Addr string
	// DB is a SQLite file path or a postgres:// URL.
	DB string
	// DBMustExist refuses a database that does not exist yet, or holds no tables of payoutd,
	// instead of creating it (store.ErrNoDatabase): for the commands that only read one.
	DBMustExist bool
	// PublicURL is the origin payees reach the hosted pages at, written into the link fields of
	// payout links and flows; default http://Addr.
	PublicURL string
	// EncryptionKey seals secrets at rest: 32 bytes (see ParseKey). See the package doc for
	// what happens when it is empty.
	EncryptionKey []byte
	// BodyLimit is the largest request body in bytes (default api.DefaultBodyLimit).
	BodyLimit int
	// AuthFailures is how many wrong API credentials one client address, or one client_id, may
	// have in api.DefaultAuthWindow before further wrong ones answer 429 (default
	// api.DefaultAuthFailures); the right credentials always authenticate.
	AuthFailures int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed.
	TrustedProxies []string
	// FrameAncestors are the origins allowed to embed the hosted pages in an iframe (CSP
	// frame-ancestors), for the hosted pages; empty allows only the service's own origin. A
	// dashboard that shows flows in an iframe puts its origin here.
	FrameAncestors []string
	// HideSandboxInbox turns sandbox mode off: no GET /v2/sandbox/messages (each app's messages
	// the sandbox notifier kept: verification codes, payout links), and flow redirects must be
	// https even to localhost. Set it where real messages are sent.
	HideSandboxInbox bool
	// WorkerInterval is how often the background worker settles due payouts and delivers payout
	// links (default 1s); a negative interval runs no worker (tests that drive SettleDue).
	WorkerInterval time.Duration
	// Fees is the payout fee per platform and Thresholds1099 the 1099 threshold per year; nil
	// means the service's defaults.
	Fees           map[payouts.Platform]payouts.Money
	Thresholds1099 map[int]payouts.Money
	// IRISTCC is the payer's IRIS Transmitter Control Code (service.Config.IRISTCC).
	IRISTCC string
	// SandboxDelay and SandboxACHDelay are how long sandbox payouts take to settle (defaults 5s
	// and 20s).
	SandboxDelay, SandboxACHDelay time.Duration
	// Providers are the real payout providers (a PayPal account, ...), each serving some
	// platforms in place of the sandbox; a platform none serves stays on the sandbox.
	Providers []RailProvider
	// RailLease is how long a worker owns a payout it is submitting (default one minute).
	RailLease time.Duration
	// WebhookLease is how long a worker holds the webhook deliveries it is sending (default one
	// minute).
	WebhookLease time.Duration
	// DBTimeouts bound, on PostgreSQL, a statement's wait for a lock and its run (zero: the
	// sqldb defaults, 5s and 30s).
	DBTimeouts sqldb.Timeouts
	// ShutdownTimeout bounds the wait for requests in flight when Serve's context ends.
	ShutdownTimeout time.Duration
	// LedgerCheckInterval is how often Serve checks every ledger's invariants (default
	// DefaultLedgerCheckInterval), logging an error on a violation and reporting to Metrics; a
	// negative interval checks never.
	LedgerCheckInterval time.Duration
	// Retention is how long events, webhook deliveries and their attempts, and outbox messages
	// are kept once done with (default DefaultRetention); Serve prunes what is older every
	// PruneInterval. Whatever a delivery still pending needs, and a message still queued, is kept
	// at any age. A negative retention keeps everything.
	Retention time.Duration
	// Sanctions is the file or folder of OFAC's lists that cmd/payoutd loads at start and again
	// on SIGHUP (LoadSanctions); "" screens against whatever list was loaded last, if any.
	Sanctions string
	// SanctionsThreshold is the score at or over which a payee matching the list is held (zero:
	// sanctions.DefaultThreshold).
	SanctionsThreshold float64

	// Metrics, when set, receives request latencies, ledger commits and worker lag; nil
	// measures nothing.
	Metrics *metrics.Metrics

	// Messages are the real message providers (an SMTP server, a Twilio account), each serving
	// some channels in place of the sandbox inbox; a channel none serves stays on the inbox.
	Messages []MessageProvider
	// SMSCountries are the calling codes of the numbers the service texts ("1", "44"); empty
	// texts every country, which only the sandbox inbox should.
	SMSCountries []string

	// Clock and Notifier replace the wall clock and the service's notifier; tests set them.
	Clock    service.Clock
	Notifier service.Notifier
}

// MessageProvider is one real message provider, built by cmd/payoutd from its settings: its name
// (the --messages value that chose it), the channels it serves, its notifier, and the verifier of
// its delivery reports (nil when it sends none).
type MessageProvider struct {
	Name     string
	Channels []string
	Notifier service.Notifier
	Status   service.MessageStatusHook
}

// wireMessages routes each channel to its provider, and the rest to inbox.
func wireMessages(cfg service.Config, providers []MessageProvider, inbox service.Notifier) (service.Config, service.Notifier) {
	router := notify.Router{Channels: map[string]service.Notifier{}, Default: inbox}
	cfg.Routes, cfg.MessageStatus = service.Routes{"email": SandboxRail, "sms": SandboxRail, "voice": SandboxRail}, map[string]service.MessageStatusHook{}
	for _, p := range providers {
		for _, c := range p.Channels {
			router.Channels[c] = p.Notifier
			cfg.Routes[c] = p.Name
			if c == "sms" {
				cfg.Routes["voice"] = p.Name
			}
		}
		if p.Status != nil {
			cfg.MessageStatus[p.Name] = p.Status
		}
	}
	return cfg, router
}

func (cfg Config) withDefaults() Config {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.DB == "" {
		cfg.DB = DefaultDB
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + cfg.Addr
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.WorkerInterval == 0 {
		cfg.WorkerInterval = time.Second
	}
	if cfg.LedgerCheckInterval == 0 {
		cfg.LedgerCheckInterval = DefaultLedgerCheckInterval
	}
	if cfg.Retention == 0 {
		cfg.Retention = DefaultRetention
	}
	return cfg
}

// SandboxRail is the rail name of a platform no provider serves.
const SandboxRail = "sandbox"

// OffRail is the rail name of a platform turned off (--rails cash_app=off): outside sandbox mode
// every platform without a real provider must be, so that no payout goes through a pretend rail.
const OffRail = "off"

// Off is the rail of a platform turned off: it refuses every payout, which fails at once and
// gives its money back, and leaves one submitted before the platform was turned off to an
// operator, since it cannot ask any provider what became of it.
type Off struct{ Platform payouts.Platform }

// Submit refuses the payout.
func (o Off) Submit(context.Context, string, service.RailPayout) (service.RailReceipt, error) {
	return service.RailReceipt{}, &service.RailRejection{Reason: fmt.Sprintf("%s payouts are turned off on this service", o.Platform)}
}

// Outcome cannot be read: no provider serves the platform.
func (o Off) Outcome(context.Context, service.RailPayout, string) (service.RailOutcome, error) {
	return service.RailOutcome{}, &service.RailUnresolved{Reason: fmt.Sprintf("%s payouts are turned off on this service: no provider to ask", o.Platform)}
}

// RailProvider is one real payout provider, built by cmd/payoutd from its credentials: its name
// (the --rails value that chose it), its rail for each platform it serves, and the receiver of its
// notifications (nil when it sends none).
type RailProvider struct {
	Name    string
	Rails   map[payouts.Platform]service.Rail
	Webhook service.RailWebhook
}

// wireProviders puts each provider's rails in place of the sandbox's on its platforms and names
// the rail of every platform.
func wireProviders(cfg service.Config, providers []RailProvider) service.Config {
	rails := make(map[payouts.Platform]service.Rail, len(cfg.Rails))
	maps.Copy(rails, cfg.Rails)
	cfg.Rails, cfg.RailNames, cfg.RailWebhooks = rails, map[payouts.Platform]string{}, map[string]service.RailWebhook{}
	for _, p := range payouts.Platforms {
		cfg.RailNames[p] = SandboxRail
	}
	for _, pr := range providers {
		for p, r := range pr.Rails {
			cfg.Rails[p], cfg.RailNames[p] = r, pr.Name
		}
		if pr.Webhook != nil {
			cfg.RailWebhooks[pr.Name] = pr.Webhook
		}
	}
	return cfg
}

// Server is a running Payout Service: its store, its service and its HTTP app.
type Server struct {
	cfg     Config
	log     *slog.Logger
	store   *store.Store
	service *service.Service
	app     *fiber.App

	workerRunning atomic.Bool // for Ready
}

// New opens the database (migrating it), builds the service and the HTTP app. Close releases
// what it opened.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Server, error) {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key, st, err := openDatabase(ctx, cfg)
	if err != nil {
		return nil, err
	}
	srv, err := build(cfg, log, st, key)
	if err == nil {
		err = srv.service.VerifyKey(ctx)
	}
	if err == nil {
		// Only a key the database accepted hashes its ledger's chains, or chains an old one.
		err = st.KeyLedger(ctx, key)
	}
	if err != nil {
		st.Close()
		return nil, keyRemedy(cfg, err)
	}
	return srv, nil
}

// openDatabase returns the encryption key and the database. A database that must exist is
// opened first, so that nothing (a key file, a folder) is made beside a mistyped path; otherwise
// the key comes first, so that a key file is only ever made before its database.
func openDatabase(ctx context.Context, cfg Config) ([]byte, *store.Store, error) {
	if cfg.DBMustExist {
		st, err := store.OpenExisting(ctx, cfg.DB, cfg.DBTimeouts)
		if err != nil {
			return nil, nil, fmt.Errorf("open database: %w", err)
		}
		key, err := EncryptionKey(cfg.EncryptionKey, cfg.DB)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		return key, st, nil
	}
	key, err := EncryptionKey(cfg.EncryptionKey, cfg.DB)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.OpenWith(ctx, cfg.DB, cfg.DBTimeouts)
	if err != nil {
		return nil, nil, fmt.Errorf("open database: %w", err)
	}
	return key, st, nil
}

// keyRemedy says, of a key the database refused, what to set or restore instead.
func keyRemedy(cfg Config, err error) error {
	switch {
	case !errors.Is(err, service.ErrWrongKey):
		return err
	case len(cfg.EncryptionKey) > 0 || sqldb.IsPostgresDSN(cfg.DB):
		return fmt.Errorf("%w: set --encryption-key (DISBURSE_ENCRYPTION_KEY) to the key it was made with", err)
	default:
		return fmt.Errorf("%w: %s is not its key file; restore the key file that was backed up with %s, "+
			"or set --encryption-key (DISBURSE_ENCRYPTION_KEY) to the key it was made with", err, KeyFile(cfg.DB), cfg.DB)
	}
}

func build(cfg Config, log *slog.Logger, st *store.Store, key []byte) (*Server, error) {
	// The sandbox stands in for every rail no provider serves (cmd/payoutd refuses that outside
	// sandbox mode), and in sandbox mode only for the screener (its flag amount is a test
	// trigger) and the identity check (it passes every SSN but its trigger); and, unless a test
	// sets one, for the notifier.
	var screener service.Screener
	var identity service.IdentityVerifier
	if cfg.HideSandboxInbox {
		screener, identity = service.NoProviderHolds{}, service.NoIdentityProvider{}
	}
	svcCfg := wireProviders(sandbox.Wire(service.Config{Screener: screener, Identity: identity, EncryptionKey: key, PublicURL: cfg.PublicURL,
		Fees: cfg.Fees, Thresholds1099: cfg.Thresholds1099, RailLease: cfg.RailLease, Sandbox: !cfg.HideSandboxInbox,
		WebhookLease: cfg.WebhookLease, SanctionsThreshold: cfg.SanctionsThreshold,
		IRISTCC: cfg.IRISTCC}, cfg.Clock, cfg.SandboxDelay, cfg.SandboxACHDelay), cfg.Providers)
	var notifier service.Notifier = sandbox.Inbox{Store: st, Key: key, Clock: cfg.Clock}
	if cfg.Notifier != nil {
		notifier = cfg.Notifier
	}
	svcCfg, notifier = wireMessages(svcCfg, cfg.Messages, notifier)
	svcCfg.SMSCountries = cfg.SMSCountries
	var svcStore service.Store = st
	if cfg.Metrics != nil {
		svcStore = countingStore{Store: st, onCommit: cfg.Metrics.LedgerCommitted}
	}
	// Sandbox mode, where the inbox is shown, lets webhooks reach receivers on this machine.
	svcCfg.Webhooks = webhook.New(webhook.Config{AllowPrivate: svcCfg.Sandbox})
	svc, err := service.New(svcStore, svcCfg, cfg.Clock, notifier, log.With("component", "service"))
	if err != nil {
		return nil, err
	}
	httpCfg := api.Config{BodyLimit: cfg.BodyLimit, TrustedProxies: cfg.TrustedProxies, Clock: cfg.Clock,
		AuthFailures: cfg.AuthFailures}
	apiLog := log.With("component", "api")
	fc := httpCfg.FiberConfig()
	fc.ErrorHandler = api.ErrorHandler(apiLog)
	app := fiber.New(fc)
	if cfg.Metrics != nil {
		app.Use(httpserve.Observe(cfg.Metrics.Requests("payoutd")))
	}
	srv := &Server{cfg: cfg, log: log, store: st, service: svc, app: app}
	app.Get("/healthz", httpserve.Healthz)
	app.Get("/readyz", httpserve.Readyz(srv.Ready, log))
	apiApp, err := api.New(svc, httpCfg, apiLog)
	if err != nil {
		return nil, err
	}
	app.Mount("/api", apiApp)
	pages, err := hosted.New(svc, hosted.Config{FrameAncestors: cfg.FrameAncestors,
		Assets: static.FS, Log: log.With("component", "hosted")})
	if err != nil {
		return nil, err
	}
	pages.Register(app)
	if cfg.Metrics != nil {
		var clock service.Clock = service.SystemClock{}
		if cfg.Clock != nil {
			clock = cfg.Clock
		}
		cfg.Metrics.WatchWorker(func(ctx context.Context) (time.Time, int, int, error) {
			return st.WorkerBacklog(ctx, clock.Now())
		}, clock.Now)
	}
	return srv, nil
}

// Service is the Payout Service's use cases.
func (s *Server) Service() *service.Service { return s.service }

// Store is the database.
func (s *Server) Store() *store.Store { return s.store }

// App is the HTTP app: the API under /api, the hosted pages under /. Tests may drive it with
// App().Test.
func (s *Server) App() *fiber.App { return s.app }

// Config is the configuration in effect, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// Serve answers HTTP on ln until ctx ends, then stops taking requests, lets those in flight
// finish (up to ShutdownTimeout) and returns nil. It does not close the store: Close does.
// Connections close gracefully, so a client whose body is over the limit reads its 413, and
// connections that never sent a request do not hold the shutdown (see listener).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.WorkerInterval > 0 {
		workerCtx, stopWorker := context.WithCancel(ctx)
		workerDone := make(chan struct{})
		s.workerRunning.Store(true)
		go func() {
			defer close(workerDone)
			defer s.workerRunning.Store(false)
			s.service.RunWorker(workerCtx, s.cfg.WorkerInterval)
		}()
		hooksDone := make(chan struct{})
		go func() {
			defer close(hooksDone)
			s.service.RunWebhookWorker(workerCtx, s.cfg.WorkerInterval)
		}()
		// The workers stop before Serve returns, so Close never pulls the store from under them.
		defer func() { stopWorker(); <-workerDone; <-hooksDone }()
	}
	if s.cfg.LedgerCheckInterval > 0 {
		defer s.every(ctx, s.cfg.LedgerCheckInterval, s.checkLedgersOnce)()
	}
	if s.cfg.Retention > 0 {
		defer s.every(ctx, PruneInterval, s.pruneOnce)()
	}
	return httpserve.Serve(ctx, s.app, ln, s.cfg.ShutdownTimeout)
}

// ListenAndServe listens on Config.Addr and serves until ctx ends, as Serve.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.log.Info("payoutd listening", "addr", ln.Addr().String(), "api", "http://"+ln.Addr().String()+"/api/v2")
	return s.Serve(ctx, ln)
}

// CreateApp makes an app with fresh API credentials; the key is shown only now.
func (s *Server) CreateApp(ctx context.Context, name string) (payouts.Credentials, error) {
	return s.service.CreateApp(ctx, name)
}

// EnsureApp creates an app called name, whose first key is called keyName, when there is none
// yet and returns its credentials with created = true. When apps exist it returns created = false and the first app's id and name
// only: its API key was shown when it was made and cannot be shown again.
func (s *Server) EnsureApp(ctx context.Context, name, keyName string) (creds payouts.Credentials, created bool, err error) {
	apps, err := s.service.Apps(ctx)
	if err != nil {
		return payouts.Credentials{}, false, err
	}
	if len(apps) > 0 {
		return payouts.Credentials{AppID: apps[0].ID, Name: apps[0].Name}, false, nil
	}
	creds, err = s.service.CreateAppKeyed(ctx, name, keyName)
	return creds, err == nil, err
}

// EnsureOrganization creates an organization called name when there is none yet, puts every app
// in it, and returns its credentials with created = true; the key is shown only now. When an
// organization exists it returns created = false and the first one's id and name only.
func (s *Server) EnsureOrganization(ctx context.Context, name string) (creds payouts.Credentials, created bool, err error) {
	orgs, err := s.service.Organizations(ctx)
	if err != nil || len(orgs) > 0 {
		if len(orgs) > 0 {
			creds = payouts.Credentials{AppID: orgs[0].ID, Name: orgs[0].Name}
		}
		return creds, false, err
	}
	if creds, err = s.service.CreateOrganization(ctx, name); err != nil {
		return creds, false, err
	}
	return creds, true, s.service.AdoptApps(ctx, creds.AppID)
}

// Close closes the database.
func (s *Server) Close() error { return s.store.Close() }
