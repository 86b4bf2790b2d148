// Command payoutd runs the Payout Service: the /v2 JSON API under /api and the hosted pages
// under /, on SQLite (default ./data/disburse.db) or PostgreSQL.
//
//	payoutd [flags]                       serve
//	payoutd apps create NAME [--json]     create an app and print its credentials once
//	payoutd check                         check every ledger's invariants; exit 1 on a violation
//	payoutd backup DEST                   copy the SQLite database (and its key file) consistently
//	payoutd reconcile --platform P --date D  match a day's payouts with the provider's; exit 1 on a difference
//	payoutd sanctions load PATH           load OFAC's lists and screen every payee against them
//
// Every flag has a DISBURSE_* environment variable; a flag given on the command line wins.
// On first start, with no app in the database, payoutd creates the app "Default" and prints its
// credentials once.
package main

import (
	"context"
	"errors"
	"io"

	"github.com/disburse/disburse/internal/cli"
)

func main() { cli.Main("payoutd", run) }

// run is payoutd with its inputs passed in, so tests can run it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	err := dispatch(ctx, args, getenv, stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "apps":
			return runApps(ctx, args[1:], getenv, stdout)
		case "check":
			return runCheck(ctx, args[1:], getenv, stdout)
		case "backup":
			return runBackup(ctx, args[1:], getenv, stdout)
		case "reconcile":
			return runReconcile(ctx, args[1:], getenv, stdout)
		case "sanctions":
			return runSanctions(ctx, args[1:], getenv, stdout)
		}
	}
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, stdout)
}
