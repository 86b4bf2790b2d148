package hosted_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/servicetest"
)

// embedder is another site that shows a flow in an iframe, as an app's own page does.
type embedder struct {
	*httptest.Server
	URL string // http://localhost:PORT: another site than the service's 127.0.0.1

	mu  sync.Mutex
	src string
}

func newEmbedder(t *testing.T) *embedder {
	t.Helper()
	e := &embedder{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /embed", func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		fmt.Fprintf(w, `<!doctype html><link rel="icon" href="data:,"><h1>Partner</h1><iframe src="%s" width="390" height="800" onload="document.body.dataset.loaded = 'yes'"></iframe>`, e.src)
	})
	mux.HandleFunc("GET /back", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><link rel="icon" href="data:,"><h1 id="back">Welcome back</h1>`)
	})
	e.Server = httptest.NewServer(mux)
	t.Cleanup(e.Close)
	e.URL = strings.Replace(e.Server.URL, "127.0.0.1", "localhost", 1)
	return e
}

func (e *embedder) show(src string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.src = src
}

// TestBrowserFlowInIframe runs a flow inside a cross-site iframe, where the browser keeps no
// cookies for the service: the signed session in forms and URLs carries the payee through, and
// the redirect step leaves the iframe for the partner's page. A site not in FrameAncestors
// cannot show the flow at all.
func TestBrowserFlowInIframe(t *testing.T) {
	browser.SkipShort(t)
	partner, stranger := newEmbedder(t), newEmbedder(t)
	env := start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.FrameAncestors = []string{partner.URL} }))
	f := createFlow(t, env, map[string]any{"steps": []any{"manage-payouts",
		map[string]string{"name": "redirect", "redirect_url": partner.URL + "/back"}}})
	partner.show(f.Link)
	stranger.show(f.Link)

	tab := browser.New(t)
	// Attach to the iframe once its page has loaded: attaching while it is still being set up in
	// its own process can miss the page.
	browser.Run(t, tab, chromedp.Navigate(partner.URL+"/embed"), chromedp.WaitReady(chromedp.CSS(`body[data-loaded="yes"]`)))
	field := func(name string) chromedp.CSS { return chromedp.CSS(`[name="` + name + `"]`) }
	// Inside the framed page the test sets values and submits through the DOM rather than with
	// synthetic key and mouse events: under load Chrome sometimes never delivered input events to
	// the out-of-process iframe, and the test hung.
	submit := chromedp.Submit(chromedp.CSS(`main form button[type="submit"]:not([name])`))
	heading := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(`//h1[contains(., "` + text + `")]`)
	}
	frame := browser.Frame(t, tab, env.Origin+"/f/", heading("Confirm it’s you"))

	browser.Run(t, frame,
		chromedp.SetValue(field("phone_number"), "4155550111"),
		submit,
		chromedp.WaitVisible(field("first_name")),
		chromedp.SetValue(field("first_name"), "Alan"),
		chromedp.SetValue(field("last_name"), "Turing"),
		chromedp.SetValue(field("email"), "alan@example.com"),
		submit,
		heading("Enter your code"),
	)
	browser.Run(t, frame,
		chromedp.SetValue(field("token"), env.Inbox.Token(t, "+1 4155550111")),
		submit,
		heading("Payout methods"),
		chromedp.SetValue(field("email"), "alan@example.com"),
		submit,
		heading("You’re all set"),
	)
	browser.Screenshot(t, tab, "framed")
	browser.Run(t, frame, chromedp.Click(`//button[contains(., "Continue to `+strings.TrimPrefix(partner.URL, "http://")+`")]`))
	// The top window, not the iframe, lands on the partner's page.
	browser.Run(t, tab, chromedp.WaitVisible(chromedp.CSS(`#back`)))
	if loc, err := chromedp.Run(tab, chromedp.Location()); err != nil || loc != partner.URL+"/back" {
		t.Fatalf("top window at %q (%v), want %s/back", loc, err, partner.URL)
	}
	if got := getFlow(t, env, f.ID); !got.Done() {
		t.Fatalf("flow after the redirect: %+v", got)
	}

	// The stranger's page gets no flow: the browser refuses to frame it.
	browser.Run(t, tab, chromedp.Navigate(stranger.URL+"/embed"), chromedp.WaitVisible(`//h1[contains(., "Partner")]`))
	deadline := time.Now().Add(10 * time.Second)
	for !hasConsoleError(tab, "frame-ancestors") {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal to frame the flow in %q; console errors: %q", stranger.URL, browser.ConsoleErrors(tab))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func hasConsoleError(tab context.Context, text string) bool {
	for _, e := range browser.ConsoleErrors(tab) {
		if strings.Contains(e, text) {
			return true
		}
	}
	return false
}
