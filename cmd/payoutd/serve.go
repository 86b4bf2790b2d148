package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/metrics"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// parseConfig reads the serve command line.
func parseConfig(args []string, getenv func(string) string, stdout io.Writer) (config, error) {
	fs := flag.NewFlagSet("payoutd", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: payoutd [flags]\n       payoutd apps create NAME [--json] [--db DB]\n       payoutd check [--db DB]\n       payoutd backup DEST [--db DB]\n       payoutd sanctions load PATH [--db DB]\n"+
			"       payoutd reconcile --platform PLATFORM --date YYYY-MM-DD [--rails ...] [--json] [--db DB]\n\nFlags:")
		fs.PrintDefaults()
	}
	f := flags{logOut: stdout}
	f.register(fs, getenv, true)
	if err := fs.Parse(args); err != nil {
		return config{}, flagError(err)
	}
	if fs.NArg() > 0 {
		return config{}, cli.UsageError{Err: fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	cfg, err := f.config()
	if err == nil && getenv("GOGC") == "" {
		cfg.gcPercent = defaultGCPercent
	}
	return cfg, err
}

// errHelp says the usage was printed because it was asked for: run stops there, successfully.
var errHelp = errors.New("help requested")

// flagError tells -h from a mistake on the command line.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	return cli.UsageError{Err: err}
}

// serve runs the Payout Service until ctx ends. On a database without apps it first creates
// the app "Default", and without an organization the organization that owns the apps, and prints
// their credentials, which are never shown again.
func serve(ctx context.Context, cfg config, stdout io.Writer) error {
	log := cfg.logger(stdout)
	if cfg.gcPercent > 0 {
		debug.SetGCPercent(cfg.gcPercent)
	}
	if cfg.metricsAddr != "" {
		cfg.service.Metrics = metrics.New()
		addr, stop, err := cfg.service.Metrics.Start(cfg.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer stop()
		fmt.Fprintf(stdout, "payoutd: metrics and pprof at http://%s/metrics (internal only)\n", addr)
	}
	srv, err := payoutd.New(ctx, cfg.service, log)
	if err != nil {
		return err
	}
	defer srv.Close()

	creds, created, err := srv.EnsureApp(ctx, "Default", service.FirstKeyName)
	if err != nil {
		return fmt.Errorf("create the first app: %w", err)
	}
	if created {
		fmt.Fprintln(stdout, "Created the first app. Its API key is shown only this once:")
		printCredentials(stdout, creds)
	}
	org, created, err := srv.EnsureOrganization(ctx, "Default organization")
	if err != nil {
		return fmt.Errorf("create the organization: %w", err)
	}
	if created {
		fmt.Fprintln(stdout, "Created the organization, which owns the apps. Its API key is shown only this once:")
		printCredentials(stdout, org)
	}

	// The list is loaded before the first request, so no payout goes out unscreened; SIGHUP
	// loads it again (Treasury publishes new files at no fixed time).
	if path := cfg.service.Sanctions; path != "" {
		load, err := srv.LoadSanctions(ctx, path)
		if err != nil {
			return fmt.Errorf("--sanctions: %w", err)
		}
		printLoad(stdout, load)
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		// A reload under way ends before the store closes.
		reloadCtx, stopReload := context.WithCancel(ctx)
		reloaded := make(chan struct{})
		go func() {
			defer close(reloaded)
			reloadSanctions(reloadCtx, srv, path, hup, log, nil)
		}()
		defer func() { stopReload(); <-reloaded }()
	}

	if err := warnUnscreened(ctx, srv, cfg.service.HideSandboxInbox, log); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", srv.Config().Addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "payoutd: API at http://%s/api/v2, hosted pages at %s\n", ln.Addr(), srv.Config().PublicURL)
	err = srv.Serve(ctx, ln)
	log.Info("payoutd stopped")
	return err
}

func printCredentials(w io.Writer, c payouts.Credentials) {
	fmt.Fprintf(w, "  name:      %s\n  id:        %s\n  client_id: %s\n  api_key:   %s\n", c.Name, c.AppID, c.ClientID, c.APIKey)
}
