package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axeScript is where npm ci puts axe-core, relative to the repository's root.
var axeScript = filepath.Join("node_modules", "axe-core", "axe.min.js")

// Violation is one rule axe-core found broken on a page, with the elements that break it.
type Violation struct {
	Rule    string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.Rule, v.Impact, v.Help, strings.Join(v.Targets, ", "))
}

// axeRun runs every axe rule on the document and keeps the serious and critical violations:
// minor and moderate ones are advice, not failures.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => ({id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(" "))})))`

// Axe checks the current page of ctx with axe-core and fails t for every serious or critical
// violation, naming its rule, impact and elements. It needs node_modules/axe-core (npm ci):
// without it the test is skipped, except when CI=true, where it fails.
func Axe(t testing.TB, ctx context.Context) {
	t.Helper()
	script := RequireAxe(t)
	violations, err := AxeViolations(ctx, script)
	if err != nil {
		t.Fatalf("browser: axe: %v", err)
	}
	for _, v := range violations {
		t.Errorf("accessibility: %s", v)
	}
}

// RequireAxe returns axe-core's script (axe.min.js) for t. Without it t is skipped, saying so,
// except when CI=true, where it fails. A test that checks many pages calls it first, so that it
// is skipped as a whole rather than passing with each page's check skipped.
func RequireAxe(t testing.TB) string {
	t.Helper()
	script, err := AxeScript()
	if err != nil {
		unavailable(t, err, "run npm ci")
	}
	return script
}

// AxeViolations injects script (axe.min.js) into the current page of ctx and returns the
// serious and critical violations it finds. It runs through the DevTools protocol, which the
// page's Content-Security-Policy does not govern.
func AxeViolations(ctx context.Context, script string) ([]Violation, error) {
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](script)); err != nil {
		return nil, fmt.Errorf("inject axe-core: %w", err)
	}
	return chromedp.Run(ctx, chromedp.Evaluate[[]Violation](axeRun, chromedp.EvalAwaitPromise))
}

// AxeScript reads axe.min.js from node_modules at the repository's root, found by walking up from
// the working directory (a test runs in its package's folder) to go.mod.
func AxeScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			b, err := os.ReadFile(filepath.Join(dir, axeScript))
			if err != nil {
				return "", fmt.Errorf("axe-core is not installed: %w", err)
			}
			return string(b), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("axe-core: no go.mod above the working directory")
		}
		dir = parent
	}
}

// ColorScheme makes the tab's pages match prefers-color-scheme: scheme ("light" or "dark"), as
// if the system were set so.
func ColorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

// TimeZone makes the tab's pages run in the IANA zone (such as "America/New_York"), as if the
// system were set to it: what Intl and Date read there.
func TimeZone(zone string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	})
}
