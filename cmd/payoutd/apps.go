package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
)

// runApps is "payoutd apps create NAME [--json]": make an app on the same database the service
// uses and print its credentials, the only time its key is shown.
func runApps(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return cli.UsageError{Err: fmt.Errorf("usage: payoutd apps create NAME [--json] [--db DB]")}
	}
	fs := flag.NewFlagSet("payoutd apps create", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var f flags
	f.register(fs, getenv, false)
	asJSON := fs.Bool("json", false, `print {"id", "name", "client_id", "api_key"} as JSON`)
	names, err := parseArgs(fs, args[1:])
	if err != nil {
		return flagError(err)
	}
	if len(names) != 1 {
		return cli.UsageError{Err: fmt.Errorf("usage: payoutd apps create NAME [--json] [--db DB]")}
	}
	// Logs would mix with the credentials on stdout, and --json output must stay pure JSON.
	srv, err := f.openQuiet(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	creds, err := srv.CreateApp(ctx, names[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(creds)
	}
	fmt.Fprintln(stdout, "Created an app. Its API key is shown only this once:")
	printCredentials(stdout, creds)
	return nil
}

// openQuiet opens the service on the configured database for a subcommand that prints its own
// output and logs nothing.
func (f *flags) openQuiet(ctx context.Context) (*payoutd.Server, error) {
	return f.open(ctx, false)
}

// openExisting is openQuiet for a subcommand that only reads the database: one that does not
// exist is refused, not created.
func (f *flags) openExisting(ctx context.Context) (*payoutd.Server, error) {
	return f.open(ctx, true)
}

func (f *flags) open(ctx context.Context, mustExist bool) (*payoutd.Server, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	cfg.service.DBMustExist = mustExist
	return payoutd.New(ctx, cfg.service, slog.New(slog.DiscardHandler))
}
