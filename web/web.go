// Package web is the operator dashboard's infrastructure: the Fiber app and its middleware
// (server-side sessions, CSRF, roles, security headers), route registration that refuses a route
// without a permission, the Render helper that answers a full page or an htmx fragment, and the
// error pages. It never imports the Payout Service's packages; handlers reach the service through
// the HTTP client.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/httpserve"
	"github.com/disburse/disburse/static"
)

// Store is what the dashboard's infrastructure needs of its database (dashstore.Store).
type Store interface {
	Operator(ctx context.Context, id string) (dashstore.Operator, error)
	OperatorByEmail(ctx context.Context, email string) (dashstore.Operator, error)
	SaveSession(ctx context.Context, sess dashstore.Session) error
	Session(ctx context.Context, id string) (dashstore.Session, error)
	TouchSession(ctx context.Context, id string, at time.Time) error
	DeleteSession(ctx context.Context, id string) error
	AddLoginFailure(ctx context.Context, at time.Time, keys ...string) error
	LoginFailures(ctx context.Context, key string, since time.Time) (int, time.Time, error)
	AddAudit(ctx context.Context, e *dashstore.AuditEntry) error
}

// Config is the dashboard's web configuration, parsed once by cmd/dashboard.
type Config struct {
	Store  Store
	Logger *slog.Logger
	// Now is the clock of sessions and login limits; tests move it instead of sleeping.
	Now func() time.Time

	// Secure marks the session cookie Secure and sends HSTS: set it when the dashboard is
	// served over TLS, directly or behind a TLS-terminating proxy.
	Secure bool
	// TrustedProxies are the addresses or CIDR ranges whose ProxyHeader is believed; requests
	// from anywhere else are identified by their own address, whatever headers they carry.
	TrustedProxies []string
	// ProxyHeader names the header a trusted proxy puts the client address in, such as
	// X-Forwarded-For; empty means no proxy.
	ProxyHeader string
	// FrameSources are origins the dashboard's pages may show in an iframe (the service's hosted
	// pages), for the CSP's frame-src.
	FrameSources []string

	BodyLimit    int           // bytes; 0 = 1 MiB
	ReadTimeout  time.Duration // 0 = 15 s
	WriteTimeout time.Duration // 0 = 30 s
	IdleTimeout  time.Duration // 0 = 60 s

	SessionIdle     time.Duration // 0 = 30 minutes without a request
	SessionLifetime time.Duration // 0 = 12 hours, whatever the activity

	// Sign-in throttling (throttle.go): failures in LoginWindow allowed per client address
	// (LoginAttempts) and per account and address (PairAttempts) before each further attempt
	// waits LoginBackoff, doubled with every failure up to LoginWindow; LoginAlertAt failures of
	// one account from any addresses write an alert to the audit log.
	LoginAttempts int           // 0 = 10
	PairAttempts  int           // 0 = 5
	LoginBackoff  time.Duration // 0 = 5 seconds
	LoginWindow   time.Duration // 0 = 15 minutes
	LoginAlertAt  int           // 0 = 20

	// Metrics, when set, observes requests and failed sign-ins.
	Metrics Metrics
	// Ready answers /readyz: nil when the dashboard can take traffic. Nil means always ready.
	Ready func(context.Context) error

	Password PasswordParams // zero = DefaultPasswordParams

	// Nav is the navigation, shown to each operator as far as their role allows.
	Nav []NavItem
}

// NavItem is one link of the navigation.
type NavItem struct {
	Label string
	Href  string
	Perm  Permission
	// More puts the link under the navigation's More menu, so the bar holds on one row.
	More bool
}

// Defaults of the session and login-limit settings.
const (
	DefaultSessionIdle     = 30 * time.Minute
	DefaultSessionLifetime = 12 * time.Hour
	DefaultLoginAttempts   = 10
	DefaultPairAttempts    = 5
	DefaultLoginBackoff    = 5 * time.Second
	DefaultLoginWindow     = 15 * time.Minute
	DefaultLoginAlertAt    = 20
)

func (cfg *Config) setDefaults() {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	defaults := []struct {
		d   *time.Duration
		def time.Duration
	}{
		{&cfg.ReadTimeout, 15 * time.Second}, {&cfg.WriteTimeout, 30 * time.Second},
		{&cfg.IdleTimeout, 60 * time.Second}, {&cfg.SessionIdle, DefaultSessionIdle},
		{&cfg.SessionLifetime, DefaultSessionLifetime}, {&cfg.LoginWindow, DefaultLoginWindow},
		{&cfg.LoginBackoff, DefaultLoginBackoff},
	}
	for _, d := range defaults {
		if *d.d == 0 {
			*d.d = d.def
		}
	}
	if cfg.BodyLimit == 0 {
		cfg.BodyLimit = 1 << 20
	}
	for _, n := range []struct {
		n   *int
		def int
	}{
		{&cfg.LoginAttempts, DefaultLoginAttempts}, {&cfg.PairAttempts, DefaultPairAttempts},
		{&cfg.LoginAlertAt, DefaultLoginAlertAt},
	} {
		if *n.n == 0 {
			*n.n = n.def
		}
	}
	if cfg.Password == (PasswordParams{}) {
		cfg.Password = DefaultPasswordParams
	}
}

// Server is the dashboard's Fiber app with its middleware; handlers register routes on it.
type Server struct {
	App *fiber.App

	cfg       Config
	sessions  *SessionStore
	proxies   *httpserve.Proxies
	routes    map[string]Permission // "GET /users/:id" -> permission
	assets    *static.Assets
	dummyHash string // checked against for unknown emails, so they take as long as known ones
}

// New builds the app: recover, security headers, static assets, sessions and CSRF. Routes come
// next through Register.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("web: no store")
	}
	cfg.setDefaults()
	s := &Server{cfg: cfg, routes: map[string]Permission{}}
	var err error
	if s.proxies, err = httpserve.NewProxies(cfg.ProxyHeader, cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	if s.dummyHash, err = HashPassword(RandomPassword(), cfg.Password); err != nil {
		return nil, err
	}
	s.sessions = NewSessionStore(cfg.Store, cfg.Now, cfg.SessionIdle, cfg.SessionLifetime, cfg.Secure)

	s.App = fiber.New(fiber.Config{
		AppName:                 "disburse dashboard",
		Immutable:               true, // values from the context outlive the request safely
		ErrorHandler:            s.handleError,
		ReadTimeout:             cfg.ReadTimeout,
		WriteTimeout:            cfg.WriteTimeout,
		IdleTimeout:             cfg.IdleTimeout,
		BodyLimit:               cfg.BodyLimit,
		EnableTrustedProxyCheck: true,
		TrustedProxies:          cfg.TrustedProxies,
		ProxyHeader:             cfg.ProxyHeader,
		DisableStartupMessage:   true,
	})
	if cfg.Metrics != nil {
		s.App.Use(httpserve.Observe(cfg.Metrics))
	}
	s.App.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(c *fiber.Ctx, e any) {
		cfg.Logger.Error("panic", "method", c.Method(), "path", c.Path(), "panic", e)
	}}))
	s.App.Use(s.securityHeaders)
	// Probes come before sessions: a load balancer polling them must not create sessions.
	ready := cfg.Ready
	if ready == nil {
		ready = func(context.Context) error { return nil }
	}
	if err := s.Register([]Route{
		{Method: fiber.MethodGet, Path: "/healthz", Perm: PermPublic, Handler: httpserve.Healthz},
		{Method: fiber.MethodGet, Path: "/readyz", Perm: PermPublic, Handler: httpserve.Readyz(ready, cfg.Logger)},
	}); err != nil {
		return nil, err
	}
	if err := s.serveStatic(); err != nil {
		return nil, err
	}
	s.App.Use(s.withSession, s.checkCSRF)
	return s, nil
}

// Route is one page or action of the dashboard and the permission it needs.
type Route struct {
	Method  string
	Path    string
	Perm    Permission
	Handler fiber.Handler
	// BodyLimit raises the request body limit for this route alone (an upload), in bytes; 0
	// keeps Config.BodyLimit. Fiber's limit is per server, so the server reads up to the largest
	// route's limit and every other route refuses a body over Config.BodyLimit itself.
	BodyLimit int
}

// Register adds routes, each behind the check of its permission. A route that names no
// permission, or an unknown one, is refused, so nothing is reachable by accident.
func (s *Server) Register(routes []Route) error {
	for _, r := range routes {
		key := r.Method + " " + r.Path
		switch {
		case r.Perm == "":
			return fmt.Errorf("web: route %s names no permission", key)
		case !knownPermissions[r.Perm]:
			return fmt.Errorf("web: route %s names unknown permission %q", key, r.Perm)
		case r.Handler == nil:
			return fmt.Errorf("web: route %s has no handler", key)
		}
		if _, dup := s.routes[key]; dup {
			return fmt.Errorf("web: route %s registered twice", key)
		}
		s.routes[key] = r.Perm
		limit := s.cfg.BodyLimit
		if r.BodyLimit > limit {
			limit = r.BodyLimit
			if srv := s.App.Server(); srv.MaxRequestBodySize < limit {
				srv.MaxRequestBodySize = limit
			}
		}
		s.App.Add(r.Method, r.Path, limitBody(limit), s.authorize(r.Perm), r.Handler)
	}
	return nil
}

// limitBody refuses a request whose body is over limit bytes, as Fiber does over its own.
func limitBody(limit int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(c.Request().Body()) > limit {
			return fiber.ErrRequestEntityTooLarge
		}
		return c.Next()
	}
}

// Permission returns the permission a registered route needs.
func (s *Server) Permission(method, path string) (Permission, bool) {
	p, ok := s.routes[method+" "+path]
	return p, ok
}

// Serve answers requests on ln until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return httpserve.Serve(ctx, s.App, ln, 10*time.Second)
}

// ClientIP is the address of the person at the other end (see httpserve.Proxies.ClientIP).
func (s *Server) ClientIP(c *fiber.Ctx) string { return s.proxies.ClientIP(c) }
