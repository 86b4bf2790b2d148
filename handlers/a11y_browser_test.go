package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/cmd/screenshots/demo"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserAccessibility visits every page type of the dashboard and the payee's hosted pages,
// on a laptop and a phone, in the light and the dark theme: axe-core finds no serious or
// critical problem (contrast included), the page never scrolls sideways (lists stack their rows on
// a phone; other wide tables scroll in their card), and on a phone the navigation hides behind its Menu button.
func TestBrowserAccessibility(t *testing.T) {
	browser.SkipShort(t)
	browser.RequireAxe(t)
	tab, d := startDemo(t)
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

// TestBrowserLayout: on a phone the navigation opens from its Menu button; on the user page the
// profile card keeps its own height beside the wallet, and the bank account choice of the payout
// form shows only while "Pay to" is ACH.
func TestBrowserLayout(t *testing.T) {
	browser.SkipShort(t)
	tab, d := startDemo(t)
	tour := d.Tour(tab)
	user := demo.Page{Name: "user", Path: d.Pages()[3].Path}
	visible := func(sel string) bool {
		t.Helper()
		v, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(e => !!e && e.checkVisibility())(document.querySelector('`+sel+`'))`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	if err := tour.Visit(user, demo.Viewport{Width: 390, Height: 844}, "light"); err != nil {
		t.Fatal(err)
	}
	const phoneNav = `#nav-menu nav[aria-label="Main"]`
	if visible(phoneNav) || !visible("#nav-menu summary") {
		t.Errorf("on a phone the navigation shows before Menu is pressed, or Menu is missing")
	}
	browser.Run(t, tab, chromedp.Click(chromedp.CSS("#nav-menu summary")))
	if !visible(phoneNav) {
		t.Errorf("Menu does not open the navigation")
	}

	if err := tour.Visit(user, demo.Viewport{Width: 1440, Height: 900}, "light"); err != nil {
		t.Fatal(err)
	}
	heights := `[...document.querySelectorAll('section[aria-labelledby="profile"], #wallet')].map(e => e.offsetHeight)`
	if h, err := chromedp.Run(tab, chromedp.Evaluate[[]int](heights)); err != nil || len(h) != 2 || h[0] >= h[1] {
		t.Errorf("profile and wallet heights %v (%v): want the profile shorter than the wallet", h, err)
	}
	const account = `#send-payout [name="account_id"]`
	if visible(account) {
		t.Errorf("the bank account shows while paying to the default method (PayPal)")
	}
	browser.Run(t, tab, chromedp.SetValue(chromedp.CSS(`#send-payout [name="platform"]`), "ach"),
		chromedp.Evaluate[chromedp.Void](`{ document.querySelector('#send-payout [name="platform"]').dispatchEvent(new Event("change")); }`))
	if !visible(account) {
		t.Errorf("the bank account is hidden while paying by ACH")
	}
}

func startDemo(t *testing.T) (context.Context, *demo.Demo) {
	t.Helper()
	// A tour visits over a hundred pages, each checked by axe: minutes on a busy CI machine.
	tab := browser.NewWithin(t, 15*time.Minute)
	d, err := demo.Start(context.Background(), t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return tab, d
}
