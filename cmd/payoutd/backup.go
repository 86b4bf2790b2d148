package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
)

// runBackup is "payoutd backup DEST": a consistent copy of the SQLite database, taken while the
// service runs, with its key file beside it.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	usage := cli.UsageError{Err: errors.New("usage: payoutd backup DEST [--db DB]")}
	f, dest, err := parseCommonArgs("payoutd backup", args, getenv, stdout)
	if err != nil {
		return err
	}
	if len(dest) != 1 || strings.TrimSpace(dest[0]) == "" {
		return usage
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	db := cfg.service.DB
	keyCopied, err := payoutd.Backup(ctx, db, dest[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", db, dest[0])
	if keyCopied {
		fmt.Fprintf(stdout, "and its key to %s: keep the two together\n", payoutd.KeyFile(dest[0]))
	} else {
		fmt.Fprintln(stdout, "its key is configured (--encryption-key): keep it apart from the copy; the copy cannot be read without it")
	}
	return nil
}
