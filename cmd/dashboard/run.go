package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/metrics"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/web"
)

// embeddedApp is the name under which the embedded service's app credentials are kept in the
// dashboard's database, and the name of that app.
const embeddedApp = "disburse"

// bulkFollowInterval is how often the dashboard asks the service what became of the payouts of
// finished bulk jobs' rows still sent or held.
const bulkFollowInterval = time.Minute

// payeeIndexInterval is how often the dashboard reads new users into its payee index on an API
// that cannot search them; every search brings it up to date as well.
const payeeIndexInterval = time.Minute

// run starts the dashboard (and, without an API URL, the Payout Service) and serves until ctx
// ends. What a person must see (where to go, the first admin's password) goes to stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	log := cfg.logger(stdout)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The embedded service's credentials are sealed in the dashboard's database under a key that,
	// on SQLite, is made only for a new database: it is read before the database is opened (and,
	// on a first start, made).
	var sealKey []byte
	if cfg.APIURL == "" {
		if sealKey, err = payoutd.EncryptionKey(cfg.Service.EncryptionKey, cfg.DashboardDB); err != nil {
			return fmt.Errorf("dashboard database: %w", err)
		}
	}
	store, err := dashstore.Open(ctx, cfg.DashboardDB)
	if err != nil {
		return fmt.Errorf("dashboard database: %w", err)
	}
	defer store.Close()

	var dashMetrics web.Metrics
	if cfg.MetricsAddr != "" {
		m := metrics.New()
		addr, stop, err := m.Start(cfg.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer stop()
		cfg.Service.Metrics, dashMetrics = m, m.Requests("dashboard")
		fmt.Fprintf(stdout, "metrics and pprof at http://%s/metrics (internal only)\n", addr)
	}

	dashLn, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer dashLn.Close()
	dashboardURL := cfg.PublicURL
	if dashboardURL == "" {
		dashboardURL = "http://" + dashLn.Addr().String()
	}

	// Serving goroutines report here; the first failure stops everything. On the way out, the
	// goroutines end before the service's database closes.
	var wg sync.WaitGroup
	var svc *payoutd.Server
	defer func() {
		cancel()
		wg.Wait()
		if svc != nil {
			svc.Close()
		}
	}()
	errc := make(chan error, 4)
	serve := func(name string, fn func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx); err != nil {
				errc <- fmt.Errorf("%s: %w", name, err)
				cancel()
			}
		}()
	}

	apiURL, creds, frameSources := cfg.APIURL, payouts.Credentials{ClientID: cfg.APIClientID, APIKey: cfg.APIKey, AppID: cfg.AppID}, []string(nil)
	// publicAPIURL is the API's address for the app's own clients, which the Developers page shows.
	publicAPIURL := apiURL
	if apiURL == "" {
		var svcLn net.Listener
		if svc, svcLn, err = startService(ctx, cfg, dashboardURL, log); err != nil {
			return err
		}
		if creds, err = embeddedCredentials(ctx, store, sealKey, svc); err != nil {
			return err
		}
		apiURL = "http://" + svcLn.Addr().String() + "/api"
		publicAPIURL = svc.Config().PublicURL + "/api"
		frameSources = []string{svc.Config().PublicURL}
		serve("payout service", func(ctx context.Context) error { return svc.Serve(ctx, svcLn) })
	} else if cfg.HostedURL != "" {
		// The service's hosted pages, framed on the flow page, live at their own origin (on a
		// Dots account); that service must allow this dashboard to frame them.
		frameSources = []string{cfg.HostedURL}
	} else if u, err := url.Parse(apiURL); err == nil && u.Host != "" {
		// Without --hosted-url they live at the API's origin, as our payoutd serves both.
		frameSources = []string{u.Scheme + "://" + u.Host}
	}

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32, IdleConnTimeout: 90 * time.Second}}
	defer hc.CloseIdleConnections()
	payoutsClient, err := client.New(apiURL, client.WithCredentials(creds.ClientID, creds.APIKey),
		client.WithHTTPClient(hc), client.WithUserAgent("disburse-dashboard/1"))
	if err != nil {
		return err
	}
	if creds.AppID != "" {
		// Fails early on wrong credentials, and waits for the embedded service to answer.
		if _, err := payoutsClient.GetApp(ctx, creds.AppID); err != nil {
			if cfg.APIURL == "" {
				return fmt.Errorf("the embedded Payout Service refused the saved credentials: %w", err)
			}
			log.Warn("the Payout Service did not accept the app id or credentials", "err", err)
		}
	}

	now := time.Now
	ready := func(ctx context.Context) error {
		if err := store.Ready(ctx); err != nil {
			return fmt.Errorf("dashboard database: %w", err)
		}
		if svc != nil {
			return svc.Ready(ctx)
		}
		return nil
	}
	srv, err := web.New(web.Config{Store: store, Logger: log, Now: now, Secure: cfg.Secure, Metrics: dashMetrics, Ready: ready,
		TrustedProxies: cfg.TrustedProxies, ProxyHeader: cfg.ProxyHeader, FrameSources: frameSources,
		Password: cfg.Password, Nav: handlers.Nav})
	if err != nil {
		return err
	}
	h, err := handlers.Register(handlers.Config{Web: srv, Store: store, Payouts: payoutsClient, AppID: creds.AppID,
		APIURL: publicAPIURL, ClientID: creds.ClientID, Now: now, Password: cfg.Password, Logger: log, Approvals: cfg.Approvals, BulkBatchWait: cfg.BulkBatchWait,
		BulkLease: cfg.BulkLease, BulkRepeatWindow: cfg.BulkRepeatWindow})
	if err != nil {
		return err
	}
	if err := ensureAdmin(ctx, store, cfg, dashboardURL, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "disburse dashboard on %s (Payout Service API at %s)\n", dashboardURL, apiURL)

	serve("dashboard", func(ctx context.Context) error { return srv.Serve(ctx, dashLn) })
	serve("session sweeper", func(ctx context.Context) error { sweep(ctx, store, log); return nil })
	serve("bulk job takeover", func(ctx context.Context) error { h.TakeOverBulkJobs(ctx); return nil })
	serve("bulk row follower", func(ctx context.Context) error { h.KeepFollowingBulkJobs(ctx, bulkFollowInterval); return nil })
	serve("payee index", func(ctx context.Context) error { h.KeepPayeeIndex(ctx, payeeIndexInterval); return nil })
	<-ctx.Done()
	wg.Wait()
	close(errc)
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// startService opens the embedded Payout Service and its listener. Its hosted pages may be
// framed by the dashboard (for flows shown in an iframe).
func startService(ctx context.Context, cfg config, dashboardURL string, log *slog.Logger) (*payoutd.Server, net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Service.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("payout service: %w", err)
	}
	sc := cfg.Service
	sc.Addr = ln.Addr().String()
	if sc.PublicURL == "" {
		sc.PublicURL = "http://" + sc.Addr
	}
	sc.FrameAncestors = append(sc.FrameAncestors, loopbackAliases(dashboardURL)...)
	svc, err := payoutd.New(ctx, sc, log.With("component", "payoutd"))
	if err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("payout service: %w", err)
	}
	return svc, ln, nil
}

// loopbackAliases returns origin and, when its host is a loopback address, the same origin
// written with the other usual names, since a browser may open the dashboard by either.
func loopbackAliases(origin string) []string {
	out := []string{origin}
	for _, pair := range [][2]string{{"127.0.0.1", "localhost"}, {"localhost", "127.0.0.1"}} {
		if strings.Contains(origin, "://"+pair[0]+":") {
			out = append(out, strings.Replace(origin, "://"+pair[0]+":", "://"+pair[1]+":", 1))
		}
	}
	return out
}

// embeddedCredentials returns the API credentials of the embedded service's app: those saved in
// the dashboard's database (their key sealed with sealKey), or, on the first start, those of the app it creates now (the service
// shows a key only when it makes it, so they are saved at once).
func embeddedCredentials(ctx context.Context, store *dashstore.Store, sealKey []byte, svc *payoutd.Server) (payouts.Credentials, error) {
	creds, err := store.ServiceCredentials(ctx, embeddedApp, sealKey)
	if err == nil {
		return creds, nil
	}
	if payouts.ErrorCode(err) != payouts.ENotFound {
		return creds, err
	}
	creds, created, err := svc.EnsureApp(ctx, embeddedApp, "dashboard")
	if err != nil {
		return creds, fmt.Errorf("payout service: %w", err)
	}
	if !created {
		return creds, errors.New("the service's database already has an app, but the dashboard's database has no " +
			"credentials for it: restore the dashboard database, or start with --api-url, --api-client-id and --api-key")
	}
	creds.Name = embeddedApp
	if err := store.SaveServiceCredentials(ctx, creds, sealKey, time.Now()); err != nil {
		return creds, fmt.Errorf("save the app's credentials: %w", err)
	}
	return creds, nil
}

// ensureAdmin creates the first admin when there is no operator, and prints how to sign in. A
// random password is printed this once; DISBURSE_ADMIN_PASSWORD, when set, is used instead and
// never printed.
func ensureAdmin(ctx context.Context, store *dashstore.Store, cfg config, dashboardURL string, stdout io.Writer) error {
	n, err := store.CountOperators(ctx)
	if err != nil || n > 0 {
		return err
	}
	password, shown := cfg.AdminPassword, cfg.AdminPassword == ""
	if shown {
		password = web.RandomPassword()
	}
	params := cfg.Password
	if params == (web.PasswordParams{}) {
		params = web.DefaultPasswordParams
	}
	hash, err := web.HashPassword(password, params)
	if err != nil {
		return err
	}
	op := dashstore.Operator{Email: cfg.AdminEmail, Name: "Admin", Role: dashstore.RoleAdmin, PasswordHash: hash}
	if err := store.CreateOperator(ctx, &op, time.Now()); err != nil {
		return fmt.Errorf("create the first admin: %w", err)
	}
	fmt.Fprintf(stdout, "\nFirst start: sign in at %s/login\n  email:    %s\n", dashboardURL, op.Email)
	if shown {
		fmt.Fprintf(stdout, "  password: %s\n  (shown only now: keep it, or reset it later from another admin account)\n\n", password)
	} else {
		fmt.Fprintf(stdout, "  password: the one in DISBURSE_ADMIN_PASSWORD\n\n")
	}
	return nil
}

// sweep removes expired sessions and old failed-login records every few minutes, so neither
// table grows without bound.
func sweep(ctx context.Context, store *dashstore.Store, log *slog.Logger) {
	const idle, window = web.DefaultSessionIdle, web.DefaultLoginWindow
	tick := time.NewTicker(5 * time.Minute)
	defer tick.Stop()
	for {
		now := time.Now()
		if _, err := store.DeleteExpiredSessions(ctx, now, now.Add(-idle)); err != nil && ctx.Err() == nil {
			log.Error("sweep sessions", "err", err)
		}
		if err := store.DeleteLoginFailures(ctx, now.Add(-window)); err != nil && ctx.Err() == nil {
			log.Error("sweep login failures", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
