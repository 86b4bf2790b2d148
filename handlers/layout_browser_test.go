package handlers_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/demo"
)

// TestBrowserFilterBarLayout: on the transfers page, signed in as the demo's admin (who sees
// every link), the filter bar and the navigation each take one row on a laptop, and nothing
// makes a phone's page scroll sideways.
func TestBrowserFilterBarLayout(t *testing.T) {
	tab, d := startDemo(t)
	tour := d.Tour(tab)
	transfers := demo.Page{Name: "transfers", Path: "/transfers"}
	// rows counts the rows that the shown elements matching sel take: an element starts a row
	// when its top is below the bottom of every element of the row before (controls of one row
	// may differ in height, aligned on their bottoms).
	rows := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`(() => {
			const boxes = [...document.querySelectorAll('`+sel+`')].filter(e => e.checkVisibility())
				.map(e => e.getBoundingClientRect()).sort((a, b) => a.top - b.top);
			let rows = 0, bottom = -Infinity;
			for (const b of boxes) {
				if (b.top >= bottom) { rows++; bottom = b.bottom; } else { bottom = Math.max(bottom, b.bottom); }
			}
			return rows;
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The filter's controls: each field's box and the button, not the inputs inside a field.
	const controls = `form[role="search"][action="/transfers"] > *:not([type="hidden"])`
	const navLinks = `header nav[aria-label="Main"] > *`
	for _, tc := range []struct {
		width  int64
		oneRow bool // the filter bar and the navigation each on one row
	}{
		{1440, true},
		{1280, true},
		{390, false},
	} {
		t.Run(strconv.FormatInt(tc.width, 10), func(t *testing.T) {
			if err := tour.Visit(transfers, demo.Viewport{Width: tc.width, Height: 900}, "light"); err != nil {
				t.Fatal(err)
			}
			if tc.oneRow {
				if n := rows(controls); n != 1 {
					t.Errorf("the filter bar takes %d rows, want 1", n)
				}
				if n := rows(navLinks); n != 1 {
					t.Errorf("the navigation takes %d rows, want 1", n)
				}
			}
			width, err := chromedp.Run(tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`))
			if err != nil || width > 0 {
				t.Errorf("the page is %dpx wider than the window (%v)", width, err)
			}
			if t.Failed() {
				browser.Screenshot(t, tab, "layout")
			}
		})
	}
}
