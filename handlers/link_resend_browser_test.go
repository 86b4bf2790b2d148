package handlers_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/servicetest"
)

// TestBrowserSendLinkAgain: in Chromium, operations reads on the Overview that a payout link was
// not delivered, follows the count to the link, reads why on the payee's messages, and sends it
// again from the link's page; the payee's page then says the message waits to be sent. The
// service's worker is stopped: the test delivers, so the resent message is still waiting when
// the page is read. Sending again is our service's extension (messages): the public API has none.
func TestBrowserSendLinkAgain(t *testing.T) {
	browser.SkipShort(t)
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	_, link := h.bouncedLink()
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/overview"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="attention-undelivered-links"]`)),
	)
	if got := textOf(t, tab, `[data-testid="attention-undelivered-links"]`); got != "1" {
		t.Errorf("Needs attention counts %q payout links not delivered, want 1", got)
	}
	row := `tr[data-id="` + link.ID + `"]`
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`a[href="/payout-links?status=delivery_failed"]`)),
		chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.Click(chromedp.CSS(row+` a[href="/payout-links/`+link.ID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#resend-title`)),
	)
	browser.Screenshot(t, tab, "not-delivered")
	if got := textOf(t, tab, `#resend-title + p`); !strings.Contains(got, "The message did not reach the payee.") {
		t.Errorf("the link's page says %q, want that it was not delivered", got)
	}
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`form[action="/payout-links/`+link.ID+`/resend"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#messages`)),
	)
	if got := textOf(t, tab, `main`); !strings.Contains(got, "The payout link is on its way to Mira Messages again.") {
		t.Errorf("after Send again the page reads:\n%s", got)
	}
	if got := textOf(t, tab, `#messages`); !strings.Contains(got, "bounce@example.com") || !strings.Contains(got, "waiting to be sent") ||
		!strings.Contains(got, "does not accept messages") {
		t.Errorf("the payee's messages read:\n%s\nwant the failed one with its reason and the new one waiting", got)
	}
}
