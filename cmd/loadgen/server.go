package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the raw commit probe on PostgreSQL
	_ "modernc.org/sqlite"             // the raw commit probe on SQLite

	"github.com/disburse/disburse/payouts"
)

// server is a payoutd that loadgen started and stops.
type server struct {
	cmd        *exec.Cmd
	url, dsn   string
	creds      payouts.Credentials
	cleanup    func()
	rawCommits float64
}

func (s *server) pid() int { return s.cmd.Process.Pid }

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
	s.cleanup()
}

// startServer builds payoutd (unless given), creates an app on a fresh database and serves it
// on a free port, with logs discarded.
func startServer(ctx context.Context, cfg config, out io.Writer) (*server, error) {
	dir, cleanup := cfg.keepDir, func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "loadgen-")
		if err != nil {
			return nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	bin := cfg.payoutd
	if bin == "" {
		bin = filepath.Join(dir, "payoutd")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/payoutd")
		build.Stdout, build.Stderr = out, out
		if err := build.Run(); err != nil {
			cleanup()
			return nil, fmt.Errorf("build payoutd (run loadgen from the repository root, or pass -payoutd): %w", err)
		}
	}
	dsn := cfg.db
	if dsn == "" {
		dsn = filepath.Join(dir, fmt.Sprintf("loadgen-%d.db", time.Now().UnixNano()))
	}
	key := make([]byte, 32)
	rand.Read(key)
	env := append(os.Environ(), "DISBURSE_DB="+dsn, "DISBURSE_ENCRYPTION_KEY="+hex.EncodeToString(key), "DISBURSE_LOG_LEVEL=error")

	var creds payouts.Credentials
	apps := exec.CommandContext(ctx, bin, "apps", "create", "loadgen", "--json")
	apps.Env = env
	b, err := apps.Output()
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("payoutd apps create: %w", err)
	}
	if err := json.Unmarshal(b, &creds); err != nil {
		cleanup()
		return nil, fmt.Errorf("payoutd apps create: %q: %w", b, err)
	}
	addr, err := freeAddr()
	if err != nil {
		cleanup()
		return nil, err
	}
	cmd := exec.Command(bin, "--addr", addr)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		cleanup()
		return nil, err
	}
	s := &server{cmd: cmd, url: "http://" + addr, dsn: dsn, creds: creds, cleanup: cleanup}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(s.url + "/api/v2/apps/" + creds.AppID); err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Since(start) > 30*time.Second {
			s.stop()
			return nil, fmt.Errorf("payoutd did not answer at %s", s.url)
		}
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// procUsage is what the server process used during the load.
type procUsage struct {
	peakRSSKiB int64
	cpu        time.Duration
	writes     ioCounters // zero when /proc/PID/io could not be read
}

// ioCounters are a process's write counters from /proc/PID/io: bytes handed to write-like
// syscalls (wchar, page cache included, so it counts what SQLite writes to its WAL and
// checkpoints whether or not it reached the disk yet) and the number of those syscalls.
type ioCounters struct {
	bytes, calls int64
}

func (c ioCounters) minus(d ioCounters) ioCounters {
	return ioCounters{bytes: c.bytes - d.bytes, calls: c.calls - d.calls}
}

// parseProcIO reads wchar and syscw from the text of /proc/PID/io ("name: value" lines).
func parseProcIO(r io.Reader) (ioCounters, error) {
	var c ioCounters
	seen := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "wchar":
			dst = &c.bytes
		case "syscw":
			dst = &c.calls
		default:
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return ioCounters{}, fmt.Errorf("/proc io %s: %w", name, err)
		}
		*dst = n
		seen++
	}
	if err := sc.Err(); err != nil {
		return ioCounters{}, err
	}
	if seen != 2 {
		return ioCounters{}, errors.New("/proc io: wchar or syscw missing")
	}
	return c, nil
}

func procIO(pid int) (ioCounters, bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return ioCounters{}, false
	}
	defer f.Close()
	c, err := parseProcIO(f)
	return c, err == nil
}

// sampler watches a process's resident memory (peak) and CPU time through /proc.
type sampler struct {
	pid   int
	quit  chan struct{}
	done  sync.WaitGroup
	peak  int64
	cpu0  time.Duration
	valid bool
	io0   ioCounters
	ioOK  bool
}

func startSampler(pid int) *sampler {
	s := &sampler{pid: pid, quit: make(chan struct{})}
	s.cpu0, s.valid = cpuTime(pid)
	s.io0, s.ioOK = procIO(pid)
	s.done.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			s.peak = max(s.peak, rssKiB(pid))
			select {
			case <-s.quit:
				return
			case <-tick.C:
			}
		}
	})
	return s
}

func (s *sampler) stop() procUsage {
	close(s.quit)
	s.done.Wait()
	cpu1, ok := cpuTime(s.pid)
	u := procUsage{peakRSSKiB: max(s.peak, rssKiB(s.pid))}
	if ok && s.valid {
		u.cpu = cpu1 - s.cpu0
	}
	if io1, ok := procIO(s.pid); ok && s.ioOK {
		u.writes = io1.minus(s.io0)
	}
	return u
}

func rssKiB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// cpuTime is the user and system time of a process, from /proc/PID/stat in clock ticks of
// 1/100 s (the USER_HZ of Linux on every common architecture).
func cpuTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// rawCommitRate measures how many durable one-row commits per second the same database takes
// from one connection: on SQLite a scratch file beside the database with the same settings
// (WAL, synchronous=FULL), on PostgreSQL a scratch table in the same database.
func rawCommitRate(ctx context.Context, dsn string, d time.Duration) (float64, error) {
	var db *sql.DB
	var err error
	insert := `INSERT INTO loadgen_commit_probe (n) VALUES ($1)`
	if strings.HasPrefix(dsn, "postgres") {
		db, err = sql.Open("pgx", dsn)
	} else {
		probe := dsn + ".commitprobe"
		defer os.Remove(probe)
		defer os.Remove(probe + "-wal")
		defer os.Remove(probe + "-shm")
		db, err = sql.Open("sqlite", "file:"+probe+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
		insert = `INSERT INTO loadgen_commit_probe (n) VALUES (?)`
	}
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE loadgen_commit_probe (n BIGINT)`); err != nil {
		return 0, err
	}
	defer db.ExecContext(context.WithoutCancel(ctx), `DROP TABLE loadgen_commit_probe`)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		if _, err := db.ExecContext(ctx, insert, n); err != nil { // autocommit: one commit each
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
