package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// answering is a real receiver that answers every delivery with status and body.
func answering(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestWebhookHealthAndResend: each endpoint's page and the list say its success rate over which
// attempts, its last error and its last success, read from the attempts the service recorded; a
// delivery's row has a Resend for those who manage webhooks, which queues that event again and is
// audited, and is refused with a message while the event's delivery is still pending. The
// service's worker is stopped: the test delivers, so each moment is the one it checks.
func TestWebhookHealthAndResend(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	ctx := t.Context()
	deliver := func() {
		t.Helper()
		if _, err := h.env.Service.DeliverWebhooks(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	good, err := h.payouts.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: answering(t, 200, "ok") + "/good"})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := h.payouts.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: answering(t, 503, "upstream down") + "/bad"})
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	wantBody(t, admin.get("/webhooks/"+good.ID), "No delivery attempted yet", "Never")

	var goodEvents []string
	for range 4 {
		e, err := h.payouts.SendTestWebhook(ctx, good.ID)
		if err != nil {
			t.Fatal(err)
		}
		goodEvents = append(goodEvents, e.ID)
		deliver()
	}
	badEvent, err := h.payouts.SendTestWebhook(ctx, bad.ID)
	if err != nil {
		t.Fatal(err)
	}
	deliver()

	t.Run("health on each endpoint's page", func(t *testing.T) {
		wantBody(t, admin.get("/webhooks/"+good.ID), "100% succeeded, over all 4 attempts so far", "None over all 4 attempts so far")
		res := admin.get("/webhooks/" + bad.ID)
		wantBody(t, res, "0% succeeded, over the one attempt so far", "503: upstream down", "Never")
	})

	t.Run("health on the list", func(t *testing.T) {
		wantBody(t, admin.get("/webhooks"), "100% succeeded, over all 4 attempts so far",
			"0% succeeded, over the one attempt so far", "Last error 503: upstream down")
	})

	t.Run("a pending delivery has no Resend, and resending it is refused with a message", func(t *testing.T) {
		page := admin.get("/webhooks/" + bad.ID)
		if strings.Contains(page.body, `aria-label="Resend event `+badEvent.ID+`"`) {
			t.Error("a delivery still being retried offers Resend")
		}
		before := len(h.auditActions("webhook", bad.ID))
		res := admin.post("/webhooks/"+bad.ID+"/resend", url.Values{"event_id": {badEvent.ID}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "still pending")
		if after := len(h.auditActions("webhook", bad.ID)); after != before {
			t.Errorf("a refused resend left %d audit entries, want %d", after, before)
		}
	})

	for i, tc := range []struct {
		role   dashstore.Role
		status int
	}{
		{dashstore.RoleAdmin, http.StatusSeeOther},
		{dashstore.RoleOperations, http.StatusSeeOther},
		{dashstore.RoleManager, http.StatusForbidden},
		{dashstore.RoleSupport, http.StatusForbidden},
	} {
		t.Run("resend as "+string(tc.role), func(t *testing.T) {
			agent := admin
			if tc.role != dashstore.RoleAdmin {
				agent, _ = h.signedIn(tc.role)
			}
			event := goodEvents[i]
			page := agent.get("/webhooks/" + good.ID)
			offered := strings.Contains(page.body, `aria-label="Resend event `+event+`"`)
			if offered != (tc.status == http.StatusSeeOther) {
				t.Errorf("%s is offered Resend: %v", tc.role, offered)
			}
			before := len(h.auditActions("webhook", good.ID))
			t.Run("without the CSRF token", func(t *testing.T) {
				wantStatus(t, agent.postRaw("/webhooks/"+good.ID+"/resend", url.Values{"event_id": {event}}), http.StatusForbidden)
			})
			res := agent.post("/webhooks/"+good.ID+"/resend", url.Values{"event_id": {event}})
			wantStatus(t, res, tc.status)
			entries := h.auditActions("webhook", good.ID)
			if tc.status != http.StatusSeeOther {
				if len(entries) != before {
					t.Errorf("a refused %s left an audit entry", tc.role)
				}
				return
			}
			if len(entries) != before+1 || entries[0].Action != "webhook.resend" || entries[0].Detail != "event "+event ||
				entries[0].OperatorEmail != string(tc.role)+"@example.com" {
				t.Fatalf("audit %+v, want webhook.resend of event %s by %s", entries, event, tc.role)
			}
			attempts, err := h.payouts.ListWebhookAttempts(ctx, good.ID, event, payouts.Page{})
			if err != nil {
				t.Fatal(err)
			}
			deliver()
			again, err := h.payouts.ListWebhookAttempts(ctx, good.ID, event, payouts.Page{})
			if err != nil || len(again.Data) != len(attempts.Data)+1 || again.Data[0].StatusCode != http.StatusOK {
				t.Fatalf("after the resend, attempts of %s: %+v (%v), want one more, succeeded", event, again, err)
			}
		})
	}
}

// TestBrowserWebhookResend: in Chromium, operations reads each endpoint's health on the list and
// on its page, a failing one's last error with when it happened; resends a delivery from its row;
// the page says the event was queued again, and a second Resend while that copy is still pending
// says it is refused.
func TestBrowserWebhookResend(t *testing.T) {
	browser.SkipShort(t)
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	ctx := t.Context()
	ep, err := h.payouts.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: answering(t, 200, "ok") + "/in"})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := h.payouts.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: answering(t, 503, "upstream down") + "/bad"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := h.payouts.SendTestWebhook(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.payouts.SendTestWebhook(ctx, bad.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.env.Service.DeliverWebhooks(ctx, 100); err != nil {
		t.Fatal(err)
	}
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	// The last error, then when: "503: upstream down, " and a time, never template source.
	lastError := regexp.MustCompile(`^503: upstream down, [^@]+$`)
	failing := regexp.MustCompile(`^0% succeeded, over the one attempt so far\s+Last error 503: upstream down, [^@]+$`)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/webhooks"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="endpoint-health"]`)),
	)
	health, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="endpoint-health"]')].map(td => td.innerText.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(health, failing.MatchString) {
		t.Errorf("the list's health reads %q, want the failing endpoint's rate and last error with its time", health)
	}
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/webhooks/"+bad.ID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="endpoint-health"]`)),
	)
	last, err := chromedp.Run(tab, chromedp.Evaluate[string](`[...document.querySelectorAll('dt')].find(dt => dt.textContent.trim() === 'Last error').nextElementSibling.innerText.trim()`))
	if err != nil || !lastError.MatchString(last) {
		t.Errorf("the failing endpoint's page reads its last error as %q (%v), want 503: upstream down and when", last, err)
	}
	resend := chromedp.CSS(`button[aria-label="Resend event ` + e.ID + `"]`)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/webhooks/"+ep.ID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="endpoint-health"]`)),
	)
	if health, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`[data-testid="endpoint-health"]`))); err != nil ||
		health != "100% succeeded, over the one attempt so far" {
		t.Errorf("health reads %q (%v)", health, err)
	}
	browser.Run(t, tab, chromedp.Click(resend), chromedp.WaitVisible(chromedp.CSS(`[role="status"]`)))
	if got, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`main`))); err != nil || !strings.Contains(got, "Queued event "+e.ID+" again.") {
		t.Errorf("after Resend the page reads %q (%v)", got, err)
	}
	browser.Run(t, tab, chromedp.Click(resend), chromedp.WaitVisible(chromedp.CSS(`[role="alert"]`)))
	browser.Screenshot(t, tab, "webhook-resend-pending")
	if got, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`main`))); err != nil || !strings.Contains(got, "still pending") {
		t.Errorf("a second Resend while the first is pending reads %q (%v)", got, err)
	}
}
