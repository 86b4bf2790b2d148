package handlers_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/disburse/disburse/cmd/screenshots/demo"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserFilterBarLayout: on the transfers page, signed in as the demo's admin (who sees
// every link), the filter bar and the navigation each take one row on a laptop, and nothing
// makes a phone's page scroll sideways.
func TestBrowserFilterBarLayout(t *testing.T) {
	browser.SkipShort(t)
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

// TestBrowserMoreMenu: in Chromium, the navigation's menus, More on a laptop and Menu on a
// phone, close as a menu does: Escape closes one and gives the focus back to its button, and a
// click or the focus outside it closes it; all along its button tells assistive technology
// whether it is expanded.
func TestBrowserMoreMenu(t *testing.T) {
	browser.SkipShort(t)
	h := newHarness(t)
	tab, origin := h.browserSignedIn(dashstore.RoleAdmin)
	// want checks whether the menu of button is open, and that the expanded state Chromium's
	// accessibility tree gives its button, which a screen reader announces, says the same.
	want := func(t *testing.T, button string, open bool) {
		t.Helper()
		isOpen, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+button+`').parentElement.open`))
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := chromedp.Run(tab, chromedp.Nodes(chromedp.CSS(button)))
		if err != nil {
			t.Fatal(err)
		}
		fetchRelatives := false
		tree, err := chromedp.Call(tab, accessibility.GetPartialAXTree,
			accessibility.GetPartialAXTreeParams{BackendNodeID: nodes[0].BackendNodeID, FetchRelatives: &fetchRelatives})
		if err != nil || len(tree.Nodes) == 0 {
			t.Fatalf("the button's accessibility node: %v", err)
		}
		expanded := "none"
		for _, p := range tree.Nodes[0].Properties {
			if p.Name == accessibility.PropertyNameExpanded {
				expanded = string(p.Value.Value)
			}
		}
		if isOpen != open || expanded != strconv.FormatBool(open) {
			t.Errorf("the menu is open: %v, its button expanded: %s; want %v", isOpen, expanded, open)
		}
	}
	for _, device := range []struct {
		name          string
		width, height int64
		button        string // the menu's button, the only one of the two shown at that width
	}{
		{"laptop", 1280, 900, `header nav[aria-label="Main"] details > summary`},
		{"phone", 390, 844, `#nav-menu > summary`},
	} {
		t.Run(device.name, func(t *testing.T) {
			browser.Run(t, tab,
				chromedp.EmulateViewport(device.width, device.height),
				chromedp.Navigate(origin+"/transfers"),
				chromedp.WaitVisible(chromedp.CSS(device.button)),
			)
			for _, tc := range []struct {
				name      string
				close     chromedp.Action[chromedp.Void]
				focusBack bool // the focus returns to the menu's button
			}{
				{"Escape", chromedp.KeyEvent(kb.Escape), true},
				// The operator's name takes no focus: only the click can close the menu.
				{"click outside", chromedp.Click(chromedp.CSS(`header span[title]`)), false},
				// Back from the button to the control before it (a link, or Sign out on a phone).
				{"focus outside", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)), false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					browser.Run(t, tab, chromedp.Click(chromedp.CSS(device.button)))
					want(t, device.button, true)
					browser.Run(t, tab, tc.close)
					want(t, device.button, false)
					focused, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.activeElement === document.querySelector('`+device.button+`')`))
					if err != nil || focused != tc.focusBack {
						t.Errorf("the focus is on the menu's button: %v (%v), want %v", focused, err, tc.focusBack)
					}
				})
			}
		})
	}
	if errs := browser.ConsoleErrors(tab); len(errs) > 0 {
		t.Errorf("the console shows errors: %v", errs)
	}
}
