package handlers_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserPayoutRetry: in Chromium, operations reads a failed payout's reason in the
// transfers list and opens Retry from its row; the retry page says why it failed and what will
// be checked first (our service's preflight, or on the public API that nothing is), and
// submitting it twice makes one new payout, whose failure the page says. On the public API, which
// gives no reason, each place says so rather than leaving a blank.
func TestBrowserPayoutRetry(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			browserPayoutRetry(t, newHarnessWith(t, harnessSetup{public: b.public}), b.public)
		})
	}
}

func browserPayoutRetry(t *testing.T, h *harness, public bool) {
	h.deposit(200_00)
	// Funded by the app: on the public API, whose lines do not say so, the operator says it.
	u, failed := h.refusedPayout("Bea", true, false)
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	row := `#transfers-body tr[data-id="` + failed.ID + `"]`
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/transfers?type=payout&status=failed"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	// The public API's transfers carry no failure reason (an extension of our service's).
	reason := "the sandbox PayPal account refuses payments"
	if public {
		reason = "the service gave no reason"
	}
	if got := textOf(t, tab, row+` [data-testid="failure-reason"]`); got != reason {
		t.Errorf("the row's failure reason reads %q, want %q", got, reason)
	}
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(row+` a[href$="/retry"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="retry-failed-because"]`)),
	)
	if got := textOf(t, tab, `main h1`); got != "Retry the payout of $20.00 by PayPal?" {
		t.Errorf("the retry page asks %q, want Retry the payout of $20.00 by PayPal?", got)
	}
	if got := textOf(t, tab, `[data-testid="retry-failed-because"]`); !strings.HasPrefix(got, "The payout failed: "+reason+".") {
		t.Errorf("the retry page says %q, want the reason first", got)
	}
	plan := "The service's checks pass now: the retry is sent to the rail, whose answer the next page shows."
	if public {
		plan = "This service checks nothing beforehand: the payout is sent and its answer shown."
	}
	if got := textOf(t, tab, `[data-testid="retry-plan"]`); got != plan {
		t.Errorf("the retry page plans %q, want %q", got, plan)
	}
	retry := chromedp.CSS(`form[action$="/retry"] button[type="submit"]`)
	var landed []string
	for range 2 { // the second submit is an operator going back and sending it again
		steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(origin + "/transfers/" + failed.ID + "/retry"), chromedp.WaitVisible(retry)}
		if public {
			// The public API's transfer says neither whether it was tax-exempt nor which wallet
			// paid it: the operator says both.
			steps = append(steps, chromedp.Click(chromedp.CSS(`input[name="tax_exempt"][value="false"]`)),
				chromedp.Click(chromedp.CSS(`input[name="fund"][value="app"]`)))
		}
		browser.Run(t, tab, append(steps,
			chromedp.Click(retry),
			// The retry fails as the first did, on the new payout's page.
			chromedp.WaitVisible(chromedp.CSS(`[role="alert"]`)),
		)...)
		if got := textOf(t, tab, `[role="alert"] p`); got != "The retry failed too: "+reason+"." {
			t.Errorf("after Retry the page says %q, want the retry's failure and why", got)
		}
		url, err := chromedp.Run(tab, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		landed = append(landed, url)
	}
	if landed[0] != landed[1] || strings.Contains(landed[0], failed.ID) {
		t.Errorf("the two submits landed on %q, want one new payout's page", landed)
	}
	if n := len(h.payoutsTo(u.ID)); n != 2 {
		t.Errorf("%d payouts to the payee, want the failed one and one retry", n)
	}
}
