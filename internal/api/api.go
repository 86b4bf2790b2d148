// Package api is the JSON transport of the Payout Service: the /v2 wire format of docs/API.md on a
// Fiber app. Handlers decode a request, call the service and encode its answer; errors become
// statuses in one place (error.go). The app is meant to be mounted at /api, so that routes read
// /api/v2/...
package api

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/disburse/disburse/internal/httpserve"
	"github.com/disburse/disburse/internal/service"
)

// Defaults of Config.
const (
	DefaultBodyLimit    = 1 << 20 // 1 MiB: the largest valid request (8 KiB of metadata and a form) is far smaller
	DefaultReadTimeout  = 15 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
	DefaultHeaderLimit  = 16 << 10 // fasthttp's 4 KiB is tight for long credentials and cookies
	DefaultAuthFailures = 50
	DefaultAuthWindow   = 15 * time.Minute
)

// Config is the HTTP settings of the transport, parsed by cmd/* and passed down.
type Config struct {
	// BodyLimit is the largest request body accepted, in bytes; larger ones answer 413.
	BodyLimit int
	// ReadTimeout, WriteTimeout and IdleTimeout bound a slow or idle client.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// TrustedProxies are the IPs or CIDR ranges of reverse proxies whose ProxyHeader is believed
	// for the client's IP. When empty, the client IP is the peer's address.
	TrustedProxies []string
	// ProxyHeader carries the client IP set by a trusted proxy; default X-Forwarded-For.
	ProxyHeader string
	// HeaderLimit bounds the request line and headers together, in bytes; larger ones answer 431.
	HeaderLimit int
	// AuthFailures missing or wrong credentials from one client address, or for one client_id,
	// within AuthFailureWindow make further wrong attempts from it or for it answer 429 with
	// Retry-After until the window's end; the right credentials always authenticate.
	AuthFailures      int
	AuthFailureWindow time.Duration
	// Clock times those windows; default the wall clock.
	Clock service.Clock
}

func (cfg Config) withDefaults() Config {
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.HeaderLimit <= 0 {
		cfg.HeaderLimit = DefaultHeaderLimit
	}
	if cfg.ProxyHeader == "" {
		cfg.ProxyHeader = fiber.HeaderXForwardedFor
	}
	if cfg.AuthFailures <= 0 {
		cfg.AuthFailures = DefaultAuthFailures
	}
	if cfg.AuthFailureWindow <= 0 {
		cfg.AuthFailureWindow = DefaultAuthWindow
	}
	if cfg.Clock == nil {
		cfg.Clock = service.SystemClock{}
	}
	return cfg
}

// FiberConfig returns the settings of a Fiber app that serves the API. The body limit, the
// timeouts and the proxy settings belong to the server, so they take effect on the app that
// listens: a process that mounts the API in a larger app builds that app with these settings
// too, and with ErrorHandler unless it has its own.
func (cfg Config) FiberConfig() fiber.Config {
	cfg = cfg.withDefaults()
	fc := fiber.Config{
		// Fiber's strings point into fasthttp's reused buffers unless Immutable; the service
		// keeps ids and bodies beyond the handler, so they must be copies.
		Immutable:             true,
		BodyLimit:             cfg.BodyLimit,
		ReadTimeout:           cfg.ReadTimeout,
		WriteTimeout:          cfg.WriteTimeout,
		IdleTimeout:           cfg.IdleTimeout,
		ReadBufferSize:        cfg.HeaderLimit,
		DisableStartupMessage: true,
	}
	// Set before the first c.IP(): without it, anyone could choose their logged IP with a header.
	if len(cfg.TrustedProxies) > 0 {
		fc.EnableTrustedProxyCheck = true
		fc.TrustedProxies = cfg.TrustedProxies
		fc.ProxyHeader = cfg.ProxyHeader
	}
	return fc
}

// handler holds what every handler needs.
type handler struct {
	svc         *service.Service
	log         *slog.Logger
	clock       service.Clock
	proxies     *httpserve.Proxies
	keyFailures *service.RateLimiter
}

// New returns the /v2 API as a Fiber app, to be mounted at /api (or served alone).
func New(svc *service.Service, cfg Config, log *slog.Logger) (*fiber.App, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	proxies, err := httpserve.NewProxies(cfg.ProxyHeader, cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	h := &handler{svc: svc, log: log, clock: cfg.Clock, proxies: proxies,
		keyFailures: svc.RateLimiter("api-key-failures", cfg.AuthFailures, cfg.AuthFailureWindow)}
	fc := cfg.FiberConfig()
	fc.ErrorHandler = ErrorHandler(log)
	app := fiber.New(fc)
	app.Use(collapseSlashes, h.logRequests, recover.New(recover.Config{
		EnableStackTrace:  true,
		StackTraceHandler: h.logPanic,
	}))
	h.routes(app)
	return app, nil
}

// collapseSlashes routes /api//v2//users as /api/v2/users: a client whose base URL ends in a
// slash joins it to "/v2/..." with two.
func collapseSlashes(c *fiber.Ctx) error {
	if p := c.Path(); strings.Contains(p, "//") {
		for strings.Contains(p, "//") {
			p = strings.ReplaceAll(p, "//", "/")
		}
		c.Path(p)
	}
	return c.Next()
}

// logRequests writes one log line per request with its final status. Errors are answered here,
// by the API's error handler, so that the line carries the status the client saw.
func (h *handler) logRequests(c *fiber.Ctx) error {
	start := time.Now()
	if err := c.Next(); err != nil {
		if err := h.handleError(c, err); err != nil {
			return err
		}
	}
	status := c.Response().StatusCode()
	level := slog.LevelInfo
	if status >= fiber.StatusInternalServerError {
		level = slog.LevelError
	}
	attrs := []slog.Attr{
		slog.String("method", c.Method()),
		slog.String("path", c.Path()),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(start)),
		slog.String("ip", c.IP()),
	}
	if p := currentPrincipal(c); p != nil {
		if p.AppID != "" {
			attrs = append(attrs, slog.String("app_id", p.AppID))
		}
		if p.Organization {
			attrs = append(attrs, slog.String("organization_id", p.OrganizationID))
		}
	}
	h.log.LogAttrs(c.UserContext(), level, "request", attrs...)
	return nil
}

func (h *handler) logPanic(c *fiber.Ctx, v any) {
	h.log.ErrorContext(c.UserContext(), "panic", "method", c.Method(), "path", c.Path(), "panic", v,
		"stack", string(debug.Stack()))
}

// noContent answers status with an empty body (Fiber's SendStatus would write the status text).
func noContent(c *fiber.Ctx, status int) error {
	c.Status(status)
	return nil
}
