package browser_test

import (
	"bytes"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testutil/browser"
)

var greetPage = template.Must(template.New("").Parse(`<!doctype html>
<html lang="en"><head><title>greet</title><link rel="icon" href="data:,"></head><body>
{{if .}}<p id="result">Hello, {{.}}!</p>
{{else}}<form method="post" action="/greet">
  <label>Name <input name="name" id="name"></label>
  <button type="submit">Greet</button>
</form>{{end}}
</body></html>`))

// greeter serves a form that posts a name back and greets it.
func greeter(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		greetPage.Execute(w, "")
	})
	mux.HandleFunc("POST /greet", func(w http.ResponseWriter, r *http.Request) {
		greetPage.Execute(w, r.FormValue("name"))
	})
	mux.HandleFunc("GET /noisy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><link rel="icon" href="data:,"><body><p id="ready">ready</p><script>
			console.log("fine");
			console.error("payout table failed");
			setTimeout(() => { throw new Error("boom"); }, 0);
		</script></body>`))
	})
	mux.HandleFunc("GET /inaccessible", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><html lang="en"><title>bad</title><link rel="icon" href="data:,">
			<main><button id="mute"></button><p style="color:#ddd;background:#fff">faint</p></main>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFormSubmit(t *testing.T) {
	srv := greeter(t)
	ctx := browser.New(t)

	browser.Run(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Ada Lovelace"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#result`)),
	)
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#result`)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Hello, Ada Lovelace!"; got != want {
		t.Errorf("result text = %q, want %q", got, want)
	}
	if errs := browser.ConsoleErrors(ctx); len(errs) > 0 {
		t.Errorf("console errors on a clean page: %q", errs)
	}
}

func TestConsoleErrors(t *testing.T) {
	srv := greeter(t)
	ctx := browser.New(t)

	browser.Run(t, ctx,
		chromedp.Navigate(srv.URL+"/noisy"),
		chromedp.WaitVisible(chromedp.CSS(`#ready`)),
	)
	// Console events arrive on their own, after the actions that caused them.
	want := []string{"payout table failed", "Uncaught Error: boom"}
	var errs []string
	missing := want
	for deadline := time.Now().Add(10 * time.Second); len(missing) > 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		errs = browser.ConsoleErrors(ctx)
		missing = slices.DeleteFunc(slices.Clone(want), func(w string) bool {
			return slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, w) })
		})
	}
	if len(missing) > 0 {
		t.Errorf("console errors %q lack %q", errs, missing)
	}
	if slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, "fine") }) {
		t.Errorf("console errors %q include a console.log", errs)
	}
}

func TestScreenshot(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(browser.EnvArtifacts, dir)
	srv := greeter(t)
	ctx := browser.New(t)
	browser.Run(t, ctx, chromedp.Navigate(srv.URL+"/"))

	path := browser.Screenshot(t, ctx, "form page")
	if filepath.Dir(path) != dir {
		t.Fatalf("screenshot at %q, want it in %s", path, dir)
	}
	png, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot %s is not a PNG", path)
	}
}

// TestAxe: axe-core passes the greeting form and names the rule, impact and element of each
// serious problem of a page with a nameless button and faint text, in light and dark alike.
func TestAxe(t *testing.T) {
	srv := greeter(t)
	ctx := browser.New(t)
	browser.Run(t, ctx, browser.ColorScheme("dark"), chromedp.Navigate(srv.URL+"/"))
	browser.Axe(t, ctx)

	script := browser.RequireAxe(t)
	browser.Run(t, ctx, chromedp.Navigate(srv.URL+"/inaccessible"))
	got, err := browser.AxeViolations(ctx, script)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"button-name": "critical", "color-contrast": "serious"}
	for _, v := range got {
		if want[v.Rule] == v.Impact && len(v.Targets) == 1 {
			delete(want, v.Rule)
		}
	}
	if len(want) > 0 {
		t.Errorf("violations %v lack %v", got, want)
	}
	if dark, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`matchMedia("(prefers-color-scheme: dark)").matches`)); err != nil || !dark {
		t.Errorf("prefers-color-scheme: dark matches = %v (%v), want true", dark, err)
	}
}

// TestNewSkipsUnderShort: under go test -short a browser test is skipped, with Chromium
// installed or not, and says why.
func TestNewSkipsUnderShort(t *testing.T) {
	out, _ := exec.Command(os.Args[0], "-test.run=^TestScreenshot$", "-test.short", "-test.v").CombinedOutput()
	if !strings.Contains(string(out), "--- SKIP: TestScreenshot") || !strings.Contains(string(out), "under -short") {
		t.Errorf("under -short the test was not skipped saying why:\n%s", out)
	}
}
