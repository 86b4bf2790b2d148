package handlers_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserSearchFindsAUser: in Chromium, "/" on any page focuses the header's search, typing
// a name suggests the user, and the suggestion opens the user's page. A "/" typed in a field
// stays in the field. On the public API, which has no search, the dashboard finds the user among
// the newest users itself.
func TestBrowserSearchFindsAUser(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { browserSearchFindsAUser(t, newHarnessWith(t, harnessSetup{public: b.public})) })
	}
}

func browserSearchFindsAUser(t *testing.T, h *harness) {
	maria := h.createUser("Maria", "López")
	h.createUser("Other", "Person")
	tab, origin := h.browserSignedIn(dashstore.RoleSupport)
	focused := `document.activeElement && document.activeElement.id`

	browser.Run(t, tab,
		chromedp.Navigate(origin+"/payout-links"),
		chromedp.WaitVisible(chromedp.CSS(`#filter-q`)),
		chromedp.Click(chromedp.CSS(`#filter-q`)),
		chromedp.KeyEvent("/"),
	)
	if id, err := chromedp.Run(tab, chromedp.Evaluate[string](focused)); err != nil || id != "filter-q" {
		t.Errorf("after / typed in the links' search, %q has the focus (%v), want filter-q", id, err)
	}
	if typed, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(`#filter-q`))); err != nil || typed != "/" {
		t.Errorf("the links' search holds %q (%v), want the / typed", typed, err)
	}

	browser.Run(t, tab,
		chromedp.Navigate(origin+"/users"),
		chromedp.WaitVisible(chromedp.CSS(`#global-search`)),
		chromedp.KeyEvent("/"),
	)
	if id, err := chromedp.Run(tab, chromedp.Evaluate[string](focused)); err != nil || id != "global-search" {
		t.Fatalf("after / on the page, %q has the focus (%v), want global-search", id, err)
	}
	suggestion := chromedp.CSS(`#search-suggestions a[href="/users/` + maria.ID + `"]`)
	browser.Run(t, tab,
		chromedp.KeyEvent("maria"),
		chromedp.WaitVisible(suggestion),
	)
	browser.Screenshot(t, tab, "search-suggestions")
	browser.Run(t, tab,
		chromedp.Click(suggestion),
		chromedp.WaitVisible(chromedp.CSS(`#wallet`)),
	)
	if path, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname`)); err != nil || path != "/users/"+maria.ID {
		t.Errorf("the suggestion opened %q (%v), want Maria's page", path, err)
	}
	if errs := browser.ConsoleErrors(tab); len(errs) > 0 {
		t.Errorf("the console shows errors: %v", errs)
	}
}
