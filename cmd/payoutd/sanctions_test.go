package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/sanctionstest"
)

// sdnOf is an sdn.csv listing each name as an individual.
func sdnOf(names ...string) string {
	var b strings.Builder
	for i, n := range names {
		b.WriteString(sanctionstest.Individual(9000+i, n, "SDGT", ""))
	}
	return b.String()
}

func writeSDN(t *testing.T, dir, body string) {
	sanctionstest.Write(t, dir, map[string]string{"SDN.CSV": body})
}

// payoutd sanctions load screens every payee against the files; the same files again screen
// nothing, and a folder without OFAC's files is refused.
func TestRunSanctionsLoad(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, db string) {
		seeded(t, db) // a payee named Cy Check
		dir := t.TempDir()
		load := func(path string) (string, error) {
			var out bytes.Buffer
			err := run(context.Background(), []string{"sanctions", "load", path, "--db", db},
				env(map[string]string{"DISBURSE_ENCRYPTION_KEY": testKey}), &out)
			return out.String(), err
		}
		writeSDN(t, dir, sdnOf("ROE, Richard"))
		if out, err := load(dir); err != nil || !strings.Contains(out, "(1 entries): 1 payees screened, 0 held") {
			t.Fatalf("a list without the payee: %v\n%s", err, out)
		}
		writeSDN(t, dir, sdnOf("ROE, Richard", "CHECK, Cy"))
		if out, err := load(dir); err != nil || !strings.Contains(out, "(2 entries): 1 payees screened, 1 held") {
			t.Fatalf("a list naming the payee: %v\n%s", err, out)
		}
		if out, err := load(dir); err != nil || !strings.Contains(out, "unchanged (2 entries)") {
			t.Fatalf("the same list again: %v\n%s", err, out)
		}
		if out, err := load(t.TempDir()); err == nil || cli.ExitCode(err) != 1 {
			t.Fatalf("an empty folder: %v\n%s", err, out)
		}
	})
}

func TestRunSanctionsRefusesArguments(t *testing.T) {
	for _, args := range [][]string{{"sanctions"}, {"sanctions", "load"}, {"sanctions", "drop", "x"}, {"sanctions", "load", "a", "b"},
		{"sanctions", "load", "x", "--sanctions-threshold", "2"}} {
		if err := run(context.Background(), args, env(nil), io.Discard); cli.ExitCode(err) != 2 {
			t.Errorf("payoutd %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}

// A running payoutd loads the lists again on SIGHUP: a payee clean before is held after, and a
// load that fails keeps the list loaded before.
func TestReloadSanctionsOnHangup(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	seeded(t, db)
	key, _ := payoutd.ParseKey(testKey)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := payoutd.New(ctx, payoutd.Config{DB: db, EncryptionKey: key}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	writeSDN(t, dir, sdnOf("ROE, Richard"))
	first, err := srv.LoadSanctions(ctx, dir)
	if err != nil || first.Held != 0 {
		t.Fatalf("at start: %+v %v", first, err)
	}
	type result struct {
		load *service.SanctionsLoad
		err  error
	}
	hup, results := make(chan os.Signal), make(chan result)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		reloadSanctions(ctx, srv, dir, hup, slog.New(slog.DiscardHandler), func(l *service.SanctionsLoad, err error) { results <- result{l, err} })
	}()

	writeSDN(t, dir, sdnOf("ROE, Richard", "CHECK, Cy"))
	hup <- syscall.SIGHUP
	if r := <-results; r.err != nil || r.load.Unchanged || r.load.Held != 1 {
		t.Fatalf("reload naming the payee: %+v %v", r.load, r.err)
	}
	writeSDN(t, dir, "not,a,list\n")
	hup <- syscall.SIGHUP
	if r := <-results; r.err == nil {
		t.Fatalf("a broken file loaded: %+v", r.load)
	}
	cur, err := srv.Store().CurrentSanctionsList(ctx)
	if err != nil || cur.EntryCount != 2 {
		t.Fatalf("after a failed reload the list is %+v (%v), want the 2 entries loaded before", cur, err)
	}
	cancel()
	<-stopped
}

// Outside sandbox mode payoutd warns at start while no sanctions list is loaded, naming the flag.
func TestWarnUnscreened(t *testing.T) {
	tests := []struct {
		name       string
		production bool
		load       bool
		wantWarn   bool
	}{
		{"sandbox mode", false, false, false},
		{"production without a list", true, false, true},
		{"production with a list", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			key, _ := payoutd.ParseKey(testKey)
			var out bytes.Buffer
			srv, err := payoutd.New(ctx, payoutd.Config{DB: filepath.Join(t.TempDir(), "test.db"), EncryptionKey: key,
				HideSandboxInbox: tt.production}, slog.New(slog.NewTextHandler(&out, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if tt.load {
				dir := t.TempDir()
				writeSDN(t, dir, sdnOf("ROE, Richard"))
				if _, err := srv.LoadSanctions(ctx, dir); err != nil {
					t.Fatal(err)
				}
			}
			out.Reset()
			if err := warnUnscreened(ctx, srv, srv.Config().HideSandboxInbox, slog.New(slog.NewTextHandler(&out, nil))); err != nil {
				t.Fatal(err)
			}
			warned := strings.Contains(out.String(), "level=WARN") && strings.Contains(out.String(), "no sanctions list loaded") &&
				strings.Contains(out.String(), "--sanctions")
			if warned != tt.wantWarn {
				t.Errorf("logged %q; want a warning naming --sanctions: %v", out.String(), tt.wantWarn)
			}
		})
	}
}
