// Package stripemock gives tests Stripe's official mock server, stripe-mock, a Go tool of this
// module (go.mod's tool directive): it answers every Stripe API path from the OpenAPI spec and
// fixtures it embeds, validating each request against the spec, with no network. It is
// stateless: it checks requests and answers with fixtures, and keeps nothing.
//
// One server is started per test binary, on free ports of 127.0.0.1; a package that uses it
// stops it by calling Main from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(stripemock.Main(m)) }
//
// When it cannot be built or started a test is skipped, except when CI=true, where it fails. Under
// go test -short every test that asks for it is skipped.
package stripemock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	once   sync.Once
	shared *server
)

type server struct {
	url string
	cmd *exec.Cmd
	err error
}

// URL returns the base URL of the running stripe-mock (http://127.0.0.1:PORT), for
// stripe-go's backend URL.
func URL(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("stripemock: tests against stripe-mock do not run under -short")
	}
	once.Do(func() { shared = start() })
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("stripemock: %v (CI=true, so stripe-mock is required)", shared.err)
		}
		t.Skipf("stripemock: %v", shared.err)
	}
	return shared.url
}

// Main runs the tests of m, then stops stripe-mock if it was started. It returns the exit code
// for os.Exit.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil && shared.cmd != nil {
		shared.cmd.Process.Kill()
		shared.cmd.Wait()
	}
	return code
}

// start builds the tool (go tool -n builds it into the build cache and prints its path) and
// runs it, reading the HTTP address it prints. Its HTTPS listener is on a free port too, since
// its default is a fixed one.
func start() *server {
	out, err := exec.Command("go", "tool", "-n", "stripe-mock").Output()
	if err != nil {
		return &server{err: fmt.Errorf("build stripe-mock with go tool -n stripe-mock: %w", err)}
	}
	cmd := exec.Command(strings.TrimSpace(string(out)), "-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return &server{err: err}
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return &server{err: fmt.Errorf("start stripe-mock: %w", err)}
	}
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		addr := "" // none: it ended before it listened
		for lines.Scan() {
			if a, ok := strings.CutPrefix(lines.Text(), "Listening for HTTP at address: "); ok {
				addr = a
				break
			}
		}
		found <- addr
		io.Copy(io.Discard, stdout) // keep the pipe drained for as long as it runs
	}()
	select {
	case addr := <-found:
		if addr == "" {
			cmd.Wait()
			return &server{err: errors.New("stripe-mock ended before it listened")}
		}
		return &server{url: "http://" + addr, cmd: cmd}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		return &server{err: errors.New("stripe-mock did not say where it listens within a minute")}
	}
}
