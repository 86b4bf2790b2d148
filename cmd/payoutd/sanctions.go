package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/sanctions"
	"github.com/disburse/disburse/internal/service"
)

// registerSanctions adds --sanctions-threshold, which serve and sanctions load share, and on
// serve --sanctions.
func (f *flags) registerSanctions(fs *flag.FlagSet, getenv func(string) string, serve bool) {
	f.Register(fs, getenv, cli.Flag[config]{Name: "sanctions-threshold", Env: "DISBURSE_SANCTIONS_THRESHOLD",
		Default: fmt.Sprint(sanctions.DefaultThreshold),
		Help:    "score from 0 to 1 at or over which a payee matching the loaded sanctions list is held for review (DISBURSE_SANCTIONS_THRESHOLD)",
		Set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			score, err := strconv.ParseFloat(v, 64)
			if err != nil || score <= 0 || score > 1 {
				return errors.New("want a score over 0 and at most 1, like 0.9")
			}
			c.service.SanctionsThreshold = score
			return nil
		}})
	if serve {
		f.Register(fs, getenv, cli.Flag[config]{Name: "sanctions", Env: "DISBURSE_SANCTIONS",
			Help: "folder of OFAC's sanctions list files (sdn.csv, add.csv, alt.csv, cons_prim.csv, cons_add.csv, cons_alt.csv) loaded at start and again on SIGHUP (DISBURSE_SANCTIONS)",
			Set: func(c *config, v string) error {
				c.service.Sanctions = strings.TrimSpace(v)
				return nil
			}})
	}
}

// runSanctions is "payoutd sanctions load PATH": load OFAC's lists into the database and screen
// every payee against them, as a running payoutd does on SIGHUP.
func runSanctions(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	usage := cli.UsageError{Err: errors.New("usage: payoutd sanctions load PATH [--db DB] [--sanctions-threshold N]")}
	if len(args) == 0 || args[0] != "load" {
		return usage
	}
	fs := flag.NewFlagSet("payoutd sanctions load", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var f flags
	f.register(fs, getenv, false)
	f.registerSanctions(fs, getenv, false)
	rest, err := parseArgs(fs, args[1:])
	if err != nil {
		return flagError(err)
	}
	if len(rest) != 1 {
		return usage
	}
	srv, err := f.openExisting(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	load, err := srv.LoadSanctions(ctx, rest[0])
	if err != nil {
		return fmt.Errorf("load %s: %w", rest[0], err)
	}
	printLoad(stdout, load)
	return nil
}

func printLoad(w io.Writer, l *service.SanctionsLoad) {
	if l.Unchanged {
		fmt.Fprintf(w, "sanctions list %.12s unchanged (%d entries): nothing screened again\n", l.Version, l.Entries)
		return
	}
	fmt.Fprintf(w, "sanctions list %.12s loaded (%d entries): %d payees screened, %d held\n", l.Version, l.Entries, l.Payees, l.Held)
}

// reloadSanctions loads the lists at path each time hup receives, until ctx ends; a load that
// fails is logged and keeps the list loaded before. done, when set, hears of each load.
func reloadSanctions(ctx context.Context, srv *payoutd.Server, path string, hup <-chan os.Signal, log *slog.Logger,
	done func(*service.SanctionsLoad, error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			load, err := srv.LoadSanctions(ctx, path)
			if err != nil {
				log.Error("sanctions list not reloaded; screening keeps the one loaded before", "path", path, "err", err)
			} else {
				log.Info("sanctions list reloaded", "path", path, "version", load.Version, "unchanged", load.Unchanged,
					"payees", load.Payees, "held", load.Held)
			}
			if done != nil {
				done(load, err)
			}
		}
	}
}

// warnUnscreened warns, outside sandbox mode, that no sanctions list is loaded: nobody is
// screened until one is.
func warnUnscreened(ctx context.Context, srv *payoutd.Server, production bool, log *slog.Logger) error {
	if !production {
		return nil
	}
	loaded, err := srv.Service().SanctionsLoaded(ctx)
	if err != nil || loaded {
		return err
	}
	log.WarnContext(ctx, "no sanctions list loaded: nobody is screened",
		"remedy", "set --sanctions (DISBURSE_SANCTIONS) to a folder of OFAC's lists, or run payoutd sanctions load")
	return nil
}
