package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserDevelopersKeyJourney: in Chromium, an admin makes an API key on the Developers
// page, which shows it once with a copy button; a plain HTTP call to payoutd with it succeeds;
// the admin revokes it after the confirmation page, and the same call gets 401. On the public
// API the page says keys are managed in Dots' console.
func TestBrowserDevelopersKeyJourney(t *testing.T) {
	h := newHarness(t)
	tab, origin := h.browserSignedIn(dashstore.RoleAdmin)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/developers"),
		chromedp.WaitVisible(chromedp.CSS(`[name="name"]`)),
		chromedp.SendKeys(chromedp.CSS(`[name="name"]`), "payroll job"),
		chromedp.Click(chromedp.CSS(`form[action="/developers/keys"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-api-key"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-copy="#new-api-key"]`)),
	)
	browser.Screenshot(t, tab, "developers-new-key")
	secret, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`[data-testid="new-api-key"]`)))
	if err != nil || len(secret) < 40 {
		t.Fatalf("the new key reads %q (%v)", secret, err)
	}
	call := func() int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.env.URL+"/v2/apps/"+h.env.AppID, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(h.env.ClientID, secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := call(); got != http.StatusOK {
		t.Fatalf("GET the app with the new key: %d, want 200", got)
	}
	keys, err := h.payouts.ListAPIKeys(t.Context(), h.env.AppID)
	if err != nil {
		t.Fatal(err)
	}
	var made payouts.APIKey
	for _, k := range keys.Data {
		if k.Name == "payroll job" {
			made = k
		}
	}
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/developers"),
		chromedp.Click(chromedp.CSS(`a[href="/developers/keys/`+made.ID+`/revoke"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/developers/keys/`+made.ID+`/revoke"] button[type="submit"]`)),
		chromedp.Click(chromedp.CSS(`form[action="/developers/keys/`+made.ID+`/revoke"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="api-key-`+made.ID+`"]`)),
	)
	browser.Screenshot(t, tab, "developers-revoked")
	if got := call(); got != http.StatusUnauthorized {
		t.Fatalf("GET the app with the revoked key: %d, want 401", got)
	}

	public := newHarnessWith(t, harnessSetup{public: true})
	ptab, porigin := public.browserSignedIn(dashstore.RoleAdmin)
	browser.Run(t, ptab, chromedp.Navigate(porigin+"/developers"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	if body, err := chromedp.Run(ptab, chromedp.Text(chromedp.CSS(`main`))); err != nil || !strings.Contains(body, "managed in Dots' console") {
		t.Errorf("on the public API the page reads %q (%v)", body, err)
	}
}
