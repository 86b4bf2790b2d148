package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/payouts"
)

// errDifferences is reconcile's failure when the provider's records and ours differ.
var errDifferences = errors.New("the provider's payments and ours differ")

// runReconcile is "payoutd reconcile --platform ach --date 2026-11-24": match every app's payouts
// on the platform's rail that day (UTC) against the payments the provider lists, print every
// difference (or the reconciliation as JSON with --json), and fail when there is one. The rails
// are those --rails configures, with their credentials from the environment, as payoutd serves.
func runReconcile(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	usage := cli.UsageError{Err: errors.New("usage: payoutd reconcile --platform PLATFORM --date YYYY-MM-DD [--rails ...] [--json]")}
	fs := flag.NewFlagSet("payoutd reconcile", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var f flags
	f.register(fs, getenv, false)
	f.registerRails(fs, getenv)
	var req payouts.ReconcileRequest
	fs.StringVar((*string)(&req.Platform), "platform", "", "the platform whose rail is reconciled: paypal, venmo, cash_app or ach")
	fs.StringVar(&req.Day, "date", "", "the day reconciled, YYYY-MM-DD, in UTC")
	asJSON := fs.Bool("json", false, "print the reconciliation as JSON")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(rest) != 0 {
		return usage
	}
	if err := req.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	srv, err := f.openQuiet(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	rec, err := srv.Service().Reconcile(ctx, "", req)
	if err != nil {
		return fmt.Errorf("reconcile %s on %s: %w", req.Platform, req.Day, err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rec); err != nil {
			return err
		}
	} else {
		for _, d := range rec.Differences {
			fmt.Fprintf(stdout, "%-15s transfer %s  provider %s  ours %s %s  theirs %s %s\n", d.Kind,
				orDash(d.TransferID), orDash(d.ExternalID), d.OurAmount, orDash(string(d.OurStatus)),
				d.TheirAmount, orDash(string(d.TheirStatus)))
		}
	}
	if n := len(rec.Differences); n > 0 {
		return fmt.Errorf("%w: %d differences, %d payouts matched", errDifferences, n, rec.Matched)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "ok: %d payouts on %s matched on %s, no differences\n", rec.Matched, req.Platform, req.Day)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
