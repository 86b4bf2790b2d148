// Package browser runs a real headless Chromium for tests through chromedp.
//
//	ctx := browser.New(t)
//	browser.Run(t, ctx,
//		chromedp.Navigate(srv.URL+"/login"),
//		chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), "ops@example.com"),
//		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
//	)
//	if errs := browser.ConsoleErrors(ctx); len(errs) > 0 {
//		t.Errorf("console errors: %q", errs)
//	}
//
// Each New starts its own browser with a fresh profile. When a test fails, a screenshot of the
// page and everything the page wrote to its console are saved or logged for debugging. Without a
// Chromium binary the test is skipped, except when CI=true, where it fails. Under go test -short
// every browser test is skipped: the fast loop leaves them to the full run.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// EnvArtifacts names the environment variable holding the folder where screenshots are written.
// Unset, they go to disburse-browser-artifacts in the system's temporary folder.
const EnvArtifacts = "DISBURSE_TEST_ARTIFACTS"

// Timeout bounds the actions run on a context from New, so a selector that never matches fails
// the test with a deadline error instead of hanging until go test's own timeout.
const Timeout = 2 * time.Minute

// execNames are the names Chromium goes by; Debian's package installs /usr/bin/chromium.
var execNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// sessionKey finds the session of a context made by New.
type sessionKey struct{}

// session is what New keeps about one browser.
type session struct {
	t testing.TB

	mu      sync.Mutex
	ended   bool // t has ended: t.Logf would panic
	console []chromedp.ConsoleMessage
}

// New starts a headless Chromium for t and returns a context for chromedp actions on its tab.
// Actions fail once Timeout has passed; the browser is closed when t ends.
func New(t testing.TB) context.Context {
	t.Helper()
	return NewWithin(t, Timeout)
}

// NewWithin is New for a test whose tab does more than Timeout allows on a loaded machine, such
// as a tour of every page: its actions fail once budget has passed.
func NewWithin(t testing.TB, budget time.Duration) context.Context {
	t.Helper()
	SkipShort(t)
	execPath, err := FindChromium()
	if err != nil {
		unavailable(t, err, "install chromium")
	}

	s := &session{t: t}
	browserCtx, cancelBrowser, err := Launch(execPath, s.logf)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	browserCtx = context.WithValue(browserCtx, sessionKey{}, s)
	consoleDone := s.recordConsole(browserCtx)
	ctx, cancelTimeout := context.WithTimeout(browserCtx, budget)

	t.Cleanup(func() {
		if t.Failed() {
			s.reportFailure(browserCtx)
		}
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		cancelTimeout()
		cancelBrowser()
		<-consoleDone
	})
	return ctx
}

// SkipShort skips t under go test -short, where no browser test runs. A browser test calls it
// first, before it builds the pages its browser would visit: New skips too, but only after them.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser: browser tests do not run under -short")
	}
}

// unavailable skips t for want of a tool, or fails it when CI=true, where every tool is there.
func unavailable(t testing.TB, err error, remedy string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("browser: %v (CI=true, so this is required: %s)", err, remedy)
	}
	t.Skipf("browser: %v; %s to run this test", err, remedy)
}

// Run runs actions on the tab of ctx and fails the test when one fails.
func Run(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// Screenshot saves a PNG of the whole page of ctx as name.png, prefixed with the test's name, in
// the folder of EnvArtifacts, and returns its path. It is a debugging aid: it logs its errors
// and returns "" instead of failing the test.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	path, err := saveScreenshot(ctx, fileName(t.Name())+"-"+fileName(name)+".png")
	if err != nil {
		t.Logf("browser: screenshot %s: %v", name, err)
		return ""
	}
	t.Logf("browser: screenshot saved to %s", path)
	return path
}

func saveScreenshot(ctx context.Context, file string) (string, error) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return "", err
	}
	dir := os.Getenv(EnvArtifacts)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "disburse-browser-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, file)
	return path, os.WriteFile(path, png, 0o644)
}

// ConsoleErrors returns the errors the pages of ctx have written to the console so far:
// console.error calls, uncaught exceptions and the browser's own errors, such as a failed load.
func ConsoleErrors(ctx context.Context) []string {
	s, ok := ctx.Value(sessionKey{}).(*session)
	if !ok {
		return []string{"browser: ConsoleErrors needs a context from browser.New"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []string
	for _, m := range s.console {
		if m.Type != chromedp.ConsoleError && !m.IsException() {
			continue
		}
		if m.URL != "" {
			errs = append(errs, m.Text+" ("+m.URL+")")
		} else {
			errs = append(errs, m.Text)
		}
	}
	return errs
}

// recordConsole keeps every console message of the tab until ctx ends; the returned channel is
// closed then.
func (s *session) recordConsole(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	messages := chromedp.Console(ctx) // subscribes now, before any page loads
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			s.mu.Lock()
			s.console = append(s.console, m)
			s.mu.Unlock()
		}
	}()
	return done
}

// reportFailure leaves what a person needs to see why a browser test failed.
func (s *session) reportFailure(ctx context.Context) {
	s.t.Helper()
	// A hung page must not hang the cleanup too.
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	Screenshot(s.t, ctx, "failure")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.console {
		s.t.Logf("browser console %s", m)
	}
}

// logf passes chromedp's error log to the test while the test runs.
func (s *session) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.t.Logf("chromedp: "+format, args...)
	}
}

// Launch starts the headless Chromium at execPath (see FindChromium) outside a test, as a dev
// tool does, and returns the context of its tab; cancel closes it. errorf gets chromedp's
// error log.
func Launch(execPath string, errorf func(format string, args ...any)) (context.Context, context.CancelFunc, error) {
	// These flags keep Chromium off the network: here every outside connection is refused, and
	// background services that retry them slow the browser down. chromedp creates a new, empty
	// --user-data-dir for each browser and removes it when the browser exits.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath),
		chromedp.Headless,
		chromedp.NoSandbox, // the sandbox cannot start as root or in most containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900), // a desktop layout, not the 800x600 default
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithErrorf(errorf))
	cancel := func() { cancelBrowser(); cancelAlloc() }
	// The first action starts the browser and ties its life to the context it is given, so it
	// gets the context without a timeout.
	if err := chromedp.Do(browserCtx); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("start %s: %w", execPath, err)
	}
	return browserCtx, cancel, nil
}

// FindChromium returns the path of the Chromium binary in PATH.
func FindChromium() (string, error) {
	for _, name := range execNames {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", errors.New("no Chromium found in PATH (looked for " + strings.Join(execNames, ", ") + ")")
}

// fileName turns a test name such as TestLogin/bad_password into a safe file name.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' || r < 32 {
			return '_'
		}
		return r
	}, s)
}
