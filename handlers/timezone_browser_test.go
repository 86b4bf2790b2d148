package handlers_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserDaysInOperatorZone: in a Chromium whose zone is New York, an operator who never set
// a zone finds Settings filled with the browser's and saves it; at 19:01 there, already Mar 3 in
// UTC, Overview's "Paid out today" and its chart's last bar are New York's Mar 2, and so are the
// Transfers and the Statement a colleague in UTC links to for Mar 2, and the export of those
// transfers: each names the zone. A deposit and a payout at 21:00 on Mar 1, 10:00 and 19:01 on
// Mar 2 in New York make a UTC day differ from New York's either way. On the public API, which
// has no stats, the Overview names the zone and claims no day's figure.
func TestBrowserDaysInOperatorZone(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			browserDaysInOperatorZone(t, newHarnessWith(t, harnessSetup{sharedClock: true, public: b.public}), b.public)
		})
	}
}

func browserDaysInOperatorZone(t *testing.T, h *harness, public bool) {
	h.clock.Set(time.Date(2026, 3, 1, 18, 0, 0, 0, time.UTC)) // 13:00 on Mar 1 in New York
	u := h.fundedUser("Nia", "York", 100_00)
	for _, p := range []struct {
		at              time.Time
		deposit, payout int64
	}{
		{time.Date(2026, 3, 2, 2, 0, 0, 0, time.UTC), 1_00, 7_00},   // 21:00 on Mar 1 in New York
		{time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC), 2_00, 20_00}, // 10:00 on Mar 2
		{time.Date(2026, 3, 3, 0, 1, 0, 0, time.UTC), 4_00, 5_00},   // 19:01 on Mar 2
	} {
		h.clock.Set(p.at)
		h.deposit(p.deposit)
		if _, err := h.payouts.CreatePayout(t.Context(), payouts.CreatePayoutRequest{UserID: u.ID, Amount: p.payout,
			Platform: payouts.PlatformDefault}); err != nil {
			t.Fatal(err)
		}
	}
	tab, origin := h.browserSignedIn(dashstore.RoleManager)
	browser.Run(t, tab,
		browser.TimeZone("America/New_York"),
		chromedp.Navigate(origin+"/overview"),
		chromedp.Click(chromedp.CSS(`a[href="/settings"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#time_zone`)),
	)
	if got, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(`#time_zone`))); err != nil || got != "America/New_York" {
		t.Fatalf("Settings offers the zone %q (%v), want the browser's America/New_York", got, err)
	}
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`form[action="/settings/time-zone"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="settings-zone"]`)),
	)
	wantTexts(t, "Settings", textOf(t, tab, `[data-testid="settings-zone"]`), "a day in America/New_York")

	browser.Run(t, tab, chromedp.Navigate(origin+"/overview"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="overview-zone"]`)))
	wantTexts(t, "Overview", textOf(t, tab, `[data-testid="overview-zone"]`), "Days in America/New_York")
	if public {
		if got := textOf(t, tab, `main`); strings.Contains(got, "Paid out today") {
			t.Errorf("the public API's Overview claims today's payouts it cannot count:\n%s", got)
		}
	} else {
		// New York's Mar 2: $20.00 and $5.00; UTC's Mar 3 would be $5.00 alone.
		wantTexts(t, "Paid out today", textOf(t, tab, `#overview-today`), "$25.00", "2 payouts", "$6.00 deposited")
		last, err := chromedp.Run(tab, chromedp.Evaluate[string](`[...document.querySelectorAll('#volume rect[data-date]')].at(-1).textContent`))
		if err != nil || last != "Mar 2: $25.00 in 2 payouts" {
			t.Errorf("the chart's last bar says %q (%v), want Mar 2: $25.00 in 2 payouts", last, err)
		}
	}

	// A colleague in UTC links to Mar 2 with their zone in the link: the page shows New York's
	// Mar 2, 10:00 and 19:01 there, not UTC's, which would hold 21:00 on Mar 1.
	day := "from=2026-03-02&to=2026-03-02&tz=UTC"
	browser.Run(t, tab, chromedp.Navigate(origin+"/transfers?type=payout&"+day), chromedp.WaitVisible(chromedp.CSS(`#transfers-body`)))
	browser.Screenshot(t, tab, "transfers")
	wantTexts(t, "Transfers' dates", textOf(t, tab, `#transfers-body form`), "Days in America/New_York")
	cells := func(label string) []string {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#transfers-body tbody td[data-label="`+label+`"]')]
			.map(td => td.innerText.split('\n')[0].trim())`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	wantWhen := []string{"2026-03-02 19:01 America/New_York", "2026-03-02 10:00 America/New_York"}
	if when, amounts := cells("When"), cells("Amount"); !slices.Equal(when, wantWhen) || !slices.Equal(amounts, []string{"$5.00", "$20.00"}) {
		t.Errorf("Mar 2's payouts are %q of %q, want %q of $5.00 and $20.00", when, amounts, wantWhen)
	}
	rows, col := exportOf(t, tab)
	if len(rows) != 2 {
		t.Fatalf("the export has %d rows, want Mar 2's 2 payouts:\n%v", len(rows), rows)
	}
	for i, want := range []string{"2026-03-02T19:01:00-05:00", "2026-03-02T10:00:00-05:00"} {
		if r := rows[i]; r[col["created"]] != want || r[col["time_zone"]] != "America/New_York" {
			t.Errorf("export row %d made %s in %s, want %s in America/New_York", i+1, r[col["created"]], r[col["time_zone"]], want)
		}
	}

	if public { // statements are an extension of our service's
		browser.Run(t, tab, chromedp.Navigate(origin+"/statement?"+day), chromedp.WaitVisible(chromedp.CSS(`[data-testid="api-note"]`)))
		wantTexts(t, "Statement", textOf(t, tab, `[data-testid="api-note"]`), "Statements: not available on this API")
		return
	}
	browser.Run(t, tab, chromedp.Navigate(origin+"/statement?"+day), chromedp.WaitVisible(chromedp.CSS(`[data-testid="statement-period"]`)))
	wantTexts(t, "Statement", textOf(t, tab, `[data-testid="statement-period"]`), "2026-03-02 to 2026-03-02, both included (America/New_York)")
	// New York's Mar 2 took in the $2.00 and $4.00 deposits; UTC's took the $1.00 and $2.00.
	if got := textOf(t, tab, `[data-testid="statement-in"]`); got != "$6.00" {
		t.Errorf("the Statement's In for Mar 2 is %s, want $6.00", got)
	}
}
