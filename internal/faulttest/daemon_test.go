// Package faulttest proves money safety under faults, black-box: real payoutd processes, killed
// with SIGKILL and restarted under load from the typed client, on SQLite and PostgreSQL. The
// checks go through the HTTP API only, so the tests survive changes inside the service.
package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// payoutdBin and dashboardBin are the binaries TestMain builds once for every test of the package.
var payoutdBin, dashboardBin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run() // database skips every test: nothing to build
	}
	dir, err := os.MkdirTemp("", "faulttest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	payoutdBin, dashboardBin = filepath.Join(dir, "payoutd"), filepath.Join(dir, "dashboard")
	for bin, pkg := range map[string]string{payoutdBin: "payoutd", dashboardBin: "dashboard"} {
		build := exec.Command("go", "build", "-o", bin, "github.com/disburse/disburse/cmd/"+pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "faulttest: building "+pkg+":", err)
			return 1
		}
	}
	return pgtest.Main(m)
}

// testKey seals secrets at rest; PostgreSQL requires one, and SQLite then needs no key file.
const testKey = "0000000000000000000000000000000000000000000000000000000000000001"

// railLease is the processes' rail and webhook lease: short, so a killed process's payouts and
// deliveries are taken over within the test.
const railLease = 2 * time.Second

// database is where a test's processes keep their data: a fresh SQLite file or PostgreSQL
// database per engine.
func database(t *testing.T, engine string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("faulttest: processes killed under load do not run under -short")
	}
	if engine == "postgres" {
		return pgtest.DSN(t)
	}
	return filepath.Join(t.TempDir(), "disburse.db")
}

// engines are the databases the tests run on.
var engines = []string{"sqlite", "postgres"}

// daemon is one payoutd process on a fixed address, so clients reach it again after a restart.
type daemon struct {
	t        *testing.T
	db, addr string
	settle   time.Duration // the sandbox delay of every platform

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs bytes.Buffer
	// kills and starts count what was done to the process.
	kills, starts int
}

// newDaemon prepares a payoutd on db at a free address; start runs it.
func newDaemon(t *testing.T, db string, settle time.Duration) *daemon {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	d := &daemon{t: t, db: db, addr: addr, settle: settle}
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			t.Logf("payoutd %s logs:\n%s", addr, d.logs.String())
		}
	})
	return d
}

// createApp runs "payoutd apps create NAME --json" on the daemon's database.
func (d *daemon) createApp(name string) payouts.Credentials {
	d.t.Helper()
	out, err := exec.Command(payoutdBin, "apps", "create", name, "--json", "--db", d.db,
		"--encryption-key", testKey).Output()
	if err != nil {
		d.t.Fatalf("payoutd apps create: %v", err)
	}
	var creds payouts.Credentials
	if err := json.Unmarshal(out, &creds); err != nil {
		d.t.Fatalf("payoutd apps create printed %q: %v", out, err)
	}
	return creds
}

// mustStart starts the process or ends the test.
func (d *daemon) mustStart() {
	d.t.Helper()
	if err := d.start(); err != nil {
		d.t.Fatal(err)
	}
}

// start runs the process and waits until it accepts connections.
func (d *daemon) start() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	cmd := exec.Command(payoutdBin, "--addr", d.addr, "--db", d.db, "--encryption-key", testKey,
		"--worker-interval", "20ms", "--sandbox-delay", d.settle.String(),
		"--sandbox-ach-delay", (2 * d.settle).String(), "--rail-lease", railLease.String(),
		"--webhook-lease", railLease.String(),
		"--log-level", "warn")
	cmd.Stdout, cmd.Stderr = &d.logs, &d.logs
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start payoutd: %w", err)
	}
	d.cmd = cmd
	d.starts++
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", d.addr); err == nil {
			c.Close()
			return nil
		}
	}
	return fmt.Errorf("payoutd on %s did not listen within 30s", d.addr)
}

// kill ends the process with SIGKILL: no shutdown, transactions in flight are cut off.
func (d *daemon) kill() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd == nil {
		return
	}
	d.cmd.Process.Signal(syscall.SIGKILL)
	d.cmd.Wait()
	d.cmd = nil
	d.kills++
}

// client is a typed client of the daemon that never retries by itself: the workload decides.
func (d *daemon) client(creds payouts.Credentials) *client.Client {
	d.t.Helper()
	c, err := client.New("http://"+d.addr+"/api", client.WithCredentials(creds.ClientID, creds.APIKey),
		client.WithRetry(client.RetryPolicy{MaxAttempts: 1}), client.WithTimeout(20*time.Second))
	if err != nil {
		d.t.Fatal(err)
	}
	return c
}

// killer SIGKILLs and restarts d every interval, times times, then leaves it running.
func (d *daemon) killer(ctx context.Context, interval time.Duration, times int) {
	for range times {
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		d.kill()
		if err := d.start(); err != nil {
			d.t.Error(err)
			return
		}
	}
}
