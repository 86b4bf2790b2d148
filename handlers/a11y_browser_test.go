package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/demo"
)

// TestBrowserAccessibility visits every page type of the dashboard and the payee's hosted pages,
// on a laptop and a phone, in the light and the dark theme: axe-core finds no serious or
// critical problem (contrast included), the page never scrolls sideways (wide tables scroll in
// their card), and on a phone the navigation hides behind its Menu button.
func TestBrowserAccessibility(t *testing.T) {
	tab := browser.New(t)
	d, err := demo.Start(context.Background(), t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	tour := d.Tour(tab)
	for _, p := range d.Pages() {
		for _, v := range demo.Viewports {
			for _, scheme := range []string{"light", "dark"} {
				t.Run(p.Name+"/"+strconv.FormatInt(v.Width, 10)+"/"+scheme, func(t *testing.T) {
					if err := tour.Visit(p, v, scheme); err != nil {
						t.Fatalf("visit %s: %v", p.Path, err)
					}
					browser.Axe(t, tab)
					width, err := chromedp.Run(tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
					if err != nil || width > v.Width {
						browser.Screenshot(t, tab, "wide")
						t.Errorf("the page is %dpx wide (%v), want at most %d", width, err, v.Width)
					}
				})
			}
		}
	}
	// The error pages answer 404 on purpose, and the browser logs that; nothing else may log.
	errs := slices.DeleteFunc(browser.ConsoleErrors(tab), func(e string) bool { return strings.Contains(e, "404 (Not Found)") })
	if len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
