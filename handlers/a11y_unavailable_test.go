package handlers_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccessibilityUnavailableIsLoud runs TestBrowserAccessibility in a fresh process without
// axe-core, and without Chromium: it never passes. It is skipped as a whole, naming what is
// missing and how to install it, or fails when CI=true; a pass with every page skipped would
// read as "ok".
func TestAccessibilityUnavailableIsLoud(t *testing.T) {
	t.Parallel()
	noAxe := t.TempDir()
	writeFile(t, filepath.Join(noAxe, "go.mod"), "module probe\n")
	noChromium := t.TempDir()
	writeFile(t, filepath.Join(noChromium, "go.mod"), "module probe\n")
	writeFile(t, filepath.Join(noChromium, "node_modules", "axe-core", "axe.min.js"), "window.axe = {};\n")

	for _, c := range []struct {
		name, dir string
		env       []string
		want      string
		message   string
	}{
		{"no axe-core", noAxe, nil, "--- SKIP: TestBrowserAccessibility ", "run npm ci"},
		{"no axe-core, CI", noAxe, []string{"CI=true"}, "--- FAIL: TestBrowserAccessibility ", "run npm ci"},
		{"no Chromium", noChromium, []string{"PATH=" + t.TempDir()}, "--- SKIP: TestBrowserAccessibility ", "install chromium"},
		{"no Chromium, CI", noChromium, []string{"CI=true", "PATH=" + t.TempDir()}, "--- FAIL: TestBrowserAccessibility ", "install chromium"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The timeout bounds a tour run by mistake; the missing tool must stop the test first.
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrowserAccessibility$", "-test.v", "-test.short=false", "-test.timeout=2m")
			cmd.Dir = c.dir
			cmd.Env = append(withoutCI(os.Environ()), c.env...)
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), c.message) {
				t.Errorf("want %q saying %q; the run printed:\n%s", c.want, c.message, lastLines(string(out), 20))
			}
			if strings.Contains(string(out), "--- SKIP: TestBrowserAccessibility/") {
				t.Errorf("pages were visited and skipped one by one instead of the test as a whole")
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func withoutCI(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CI=") {
			out = append(out, kv)
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
