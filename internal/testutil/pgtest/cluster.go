package pgtest

// A cluster of our own: found on this machine, started in a temporary folder as an unprivileged
// user, stopped when the test binary ends.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cluster is a PostgreSQL server that pgtest started in a temporary folder.
type cluster struct {
	dir     string
	cmd     *exec.Cmd
	exited  chan struct{}
	exitErr error // valid once exited is closed
}

// findBinaries returns the folder holding initdb and postgres. Debian keeps them outside PATH,
// in one folder per major version.
func findBinaries() (string, error) {
	var dirs []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(versioned, func(a, b string) int { return majorVersion(b) - majorVersion(a) })
	dirs = append(dirs, versioned...)
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, dir := range dirs {
		if isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", errors.New("PostgreSQL server binaries (initdb, postgres) not found via pg_config --bindir, /usr/lib/postgresql/*/bin or PATH")
}

// majorVersion reads 15 from /usr/lib/postgresql/15/bin.
func majorVersion(bindir string) int {
	v := filepath.Base(filepath.Dir(bindir))
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// startCluster initialises a cluster in a new temporary folder and starts it on a free port of
// 127.0.0.1. initdb and postgres refuse to run as root, so as root they run as the postgres user.
func startCluster(bindir string) (*cluster, string, error) {
	cred, err := credential()
	if err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, "", err
	}
	c := &cluster{dir: dir}
	fail := func(err error) (*cluster, string, error) {
		os.RemoveAll(dir)
		return nil, "", err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	initdb := exec.CommandContext(ctx, filepath.Join(bindir, "initdb"),
		"--pgdata", c.dataDir(), "--username", "postgres", "--auth", "trust",
		"--encoding", "UTF8", "--locale", "C", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}

	// The port is free when we look and taken a moment later by postgres; another process may
	// win the race, so try a few ports before giving up.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		if err := c.start(bindir, port, cred); err != nil {
			return fail(err)
		}
		dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
		select {
		case <-c.exited:
			lastErr = fmt.Errorf("postgres exited at start: %v\n%s", c.exitErr, c.log())
			continue
		case <-time.After(200 * time.Millisecond):
		}
		return c, dsn, nil
	}
	return fail(lastErr)
}

func (c *cluster) dataDir() string { return filepath.Join(c.dir, "data") }
func (c *cluster) logPath() string { return filepath.Join(c.dir, "postgres.log") }

// start runs the postmaster. It is throwaway: no fsync, no durable commits, and it dies with the
// test binary (Pdeathsig) when Main is not there to stop it.
func (c *cluster) start(bindir string, port int, cred *syscall.Credential) error {
	logFile, err := os.OpenFile(c.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(bindir, "postgres"),
		"-D", c.dataDir(),
		"-k", c.dir, // unix socket beside the data, never in the shared /var/run/postgresql
		"-h", "127.0.0.1",
		"-p", strconv.Itoa(port),
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=300", // parallel tests each hold a pool
	)
	cmd.Dir = c.dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	setParentDeathSignal(cmd.SysProcAttr)

	c.cmd = cmd
	c.exited = make(chan struct{})
	started := make(chan error, 1)
	// The kernel sends Pdeathsig when the thread that started the child ends, not the process:
	// keep the starting goroutine on its thread until the child exits (go.dev/issue/27505).
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer logFile.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	return nil
}

func (c *cluster) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// stop shuts the cluster down at once (SIGQUIT: nothing in it needs saving) and removes its files.
func (c *cluster) stop() {
	if c.cmd != nil && c.cmd.Process != nil && !c.hasExited() {
		c.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			<-c.exited
		}
	}
	os.RemoveAll(c.dir)
}

// log returns the end of the server's log, for error messages.
func (c *cluster) log() string {
	b, err := os.ReadFile(c.logPath())
	if err != nil {
		return ""
	}
	const max = 4000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

// credential returns who initdb and postgres run as: the postgres user when we are root, or
// nil (ourselves) otherwise.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and PostgreSQL refuses to run as root: need a postgres user: %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
