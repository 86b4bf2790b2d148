// Command loadgen measures the Payout Service end to end: N clients in a closed loop send a mix of
// money movements and reads for a duration, against a running service or one it starts itself on
// a fresh SQLite or PostgreSQL database. It prints committed operations per second, latency
// percentiles, errors by kind, the server's peak resident memory, CPU and writes per operation,
// and the raw commit rate of the same database measured in the same run, so figures read as
// ratios. With -raw it also runs a hand-written transfer before and after the load, on
// PostgreSQL one statement per transfer on copies of payoutd's tables (raw.go), on SQLite a
// group commit on a scratch database with payoutd's schema (rawsqlite.go), and prints the
// service's rate as a ratio to it.
// Finally it checks through the API that no money was created or lost and that every
// acknowledged operation exists once.
//
//	loadgen -clients 64 -duration 20s -mix transfer=100
//	loadgen -db postgres://localhost/bench -clients 64 -mix transfer=80,payout=10,link=5,read=3,list=2
//	loadgen -db postgres://localhost/bench -clients 64 -duration 12s -raw 6s
//	loadgen -url http://127.0.0.1:8081 -client-id ck_... -api-key sk_... -app-id ...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/disburse/disburse/client"
)

// config is loadgen's flags, parsed once.
type config struct {
	url, clientID, apiKey, appID string
	db, payoutd, keepDir         string
	clients, users               int
	duration, settleWait, raw    time.Duration
	mix                          mix
	fund                         int64
	skipCheck                    bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.url, "url", "", "base URL of a running service (its API under /api/v2); empty: start payoutd")
	fs.StringVar(&c.clientID, "client-id", "", "with -url: the app's client id")
	fs.StringVar(&c.apiKey, "api-key", "", "with -url: the app's API key")
	fs.StringVar(&c.appID, "app-id", "", "with -url: the app's id")
	fs.StringVar(&c.db, "db", "", "database of the payoutd loadgen starts: a postgres:// URL of an empty database, or empty for a fresh SQLite file")
	fs.StringVar(&c.payoutd, "payoutd", "", "payoutd binary to start; empty: go build ./cmd/payoutd")
	fs.StringVar(&c.keepDir, "dir", "", "folder for the SQLite file and the built binary; empty: a temporary one, removed")
	fs.IntVar(&c.clients, "clients", 64, "concurrent clients, each in a closed loop")
	fs.IntVar(&c.users, "users", 1000, "users to create and fund")
	fs.Int64Var(&c.fund, "fund", 100000, "cents each user starts with")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "how long to load")
	fs.DurationVar(&c.settleWait, "settle-wait", 2*time.Minute, "how long to wait for pending payouts to settle before checking")
	fs.DurationVar(&c.raw, "raw", 0, "on the database loadgen starts: run a hand-written transfer (PostgreSQL: one statement, one round trip each; SQLite: a group commit) with the same clients for this long each way before and after the load, and print the service's rate as a ratio to it; 0: skip")
	fs.BoolVar(&c.skipCheck, "skip-check", false, "skip the final ledger and existence checks")
	mixText := fs.String("mix", "transfer=100", "weights of operations: transfer (both directions), payout, link, read, list (a page deep in the transfers)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	m, err := parseMix(*mixText)
	if err != nil {
		return c, err
	}
	c.mix = m
	if c.raw > 0 && (c.url != "" || c.users < 2) {
		return c, errors.New("-raw needs a database loadgen starts (no -url) and -users 2 or more")
	}
	if c.url != "" && (c.clientID == "" || c.apiKey == "" || c.appID == "") {
		return c, errors.New("-url needs -client-id, -api-key and -app-id")
	}
	return c, nil
}

// measureRaw runs the hand-written transfer on the database of srv and prints its rates.
func measureRaw(ctx context.Context, srv *server, cfg config, out io.Writer, when string) (rawRates, error) {
	how := "one statement, one round trip and one durable commit each"
	rate := func() (rawRates, error) {
		return rawTransferRates(ctx, srv.dsn, srv.creds.AppID, cfg.clients, cfg.users, cfg.raw)
	}
	if !isPostgres(srv.dsn) {
		how = "one writer, every transfer waiting in one durable commit"
		rate = func() (rawRates, error) {
			return rawSQLiteRates(ctx, srv.dsn, cfg.clients, cfg.users, cfg.raw)
		}
	}
	rates, err := rate()
	if err != nil {
		return rawRates{}, fmt.Errorf("raw transfers: %w", err)
	}
	fmt.Fprintf(out, "raw transfers %s the load (%s, %d clients, %s each way): "+
		"%.0f/s between the app and users, %.0f/s between users\n", when, how, cfg.clients, cfg.raw, rates.viaApp, rates.betweenUsers)
	if rates.viaAppWriterCPU > 0 {
		fmt.Fprintf(out, "  the raw writer's CPU between the app and users: %.3f ms per transfer committing\n", rates.viaAppWriterCPU)
	}
	return rates, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	cfg, err := parseFlags(args, out)
	if err != nil {
		return err
	}
	var srv *server
	if cfg.url == "" {
		if srv, err = startServer(ctx, cfg, out); err != nil {
			return err
		}
		defer srv.stop()
		cfg.url, cfg.clientID, cfg.apiKey, cfg.appID = srv.url, srv.creds.ClientID, srv.creds.APIKey, srv.creds.AppID
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients + 8, MaxConnsPerHost: cfg.clients + 8}}
	api, err := client.New(cfg.url+"/api", client.WithCredentials(cfg.clientID, cfg.apiKey), client.WithHTTPClient(hc),
		client.WithRetry(client.RetryPolicy{MaxAttempts: 1}), client.WithTimeout(30*time.Second))
	if err != nil {
		return err
	}

	if srv != nil {
		rate, err := rawCommitRate(ctx, srv.dsn, 3*time.Second)
		if err != nil {
			return fmt.Errorf("raw commit rate: %w", err)
		}
		fmt.Fprintf(out, "raw commit rate of the same database (one row per durable commit, one connection): %.0f/s\n", rate)
		srv.rawCommits = rate
	}

	fmt.Fprintf(out, "setup: %d users funded with %d cents each\n", cfg.users, cfg.fund)
	w, err := setup(ctx, api, cfg)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}

	var rawBefore rawRates
	if cfg.raw > 0 {
		if rawBefore, err = measureRaw(ctx, srv, cfg, out, "before"); err != nil {
			return err
		}
	}

	fmt.Fprintf(out, "load: %d clients for %s, mix %s\n", cfg.clients, cfg.duration, cfg.mix)
	var sampler *sampler
	if srv != nil {
		sampler = startSampler(srv.pid())
	}
	res := load(ctx, api, w, cfg)
	var usage procUsage
	if sampler != nil {
		usage = sampler.stop()
	}
	res.print(out, usage, srv)
	if cfg.raw > 0 {
		rawAfter, err := measureRaw(ctx, srv, cfg, out, "after")
		if err != nil {
			return err
		}
		viaApp, betweenUsers := (rawBefore.viaApp+rawAfter.viaApp)/2, (rawBefore.betweenUsers+rawAfter.betweenUsers)/2
		fmt.Fprintf(out, "ratio to the raw transfer rates (means of before and after): %.2f of %.0f/s between the app and users, %.2f of %.0f/s between users\n",
			res.movementRate()/viaApp, viaApp, res.movementRate()/betweenUsers, betweenUsers)
	}

	if cfg.skipCheck {
		return nil
	}
	fmt.Fprintln(out, "check: waiting for payouts to settle, then reading everything back through the API")
	return check(ctx, api, w, res, cfg, out)
}
