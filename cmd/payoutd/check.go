package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/disburse/disburse/internal/cli"
)

// errLedgerViolated is check's failure when it read every ledger and found some broken.
var errLedgerViolated = errors.New("ledger invariants violated")

// runCheck is "payoutd check": check the invariants of every ledger on the database the service
// uses, print what was checked and every violation, and fail when there is one.
func runCheck(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	usage := cli.UsageError{Err: errors.New("usage: payoutd check [--db DB]")}
	f, rest, err := parseCommonArgs("payoutd check", args, getenv, stdout)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usage
	}
	srv, err := f.openExisting(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	report, err := srv.CheckLedgers(ctx)
	if err != nil {
		return fmt.Errorf("check the ledgers: %w", err)
	}
	for _, v := range report.Violations {
		fmt.Fprintf(stdout, "VIOLATION in the ledger of %s:\n", v.AppID)
		for _, p := range v.Problems {
			fmt.Fprintf(stdout, "  - %s\n", p)
		}
	}
	if n := len(report.Violations); n > 0 {
		return fmt.Errorf("%w: %d of %d ledgers", errLedgerViolated, n, report.Checked)
	}
	fmt.Fprintf(stdout, "ok: %d ledgers checked, every invariant holds\n", report.Checked)
	return nil
}

// parseCommonArgs parses the command line of a subcommand that takes only the flags every
// subcommand shares, and returns them with the positional arguments.
func parseCommonArgs(name string, args []string, getenv func(string) string, stdout io.Writer) (*flags, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	var f flags
	f.register(fs, getenv, false)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, flagError(err)
	}
	return &f, rest, nil
}
