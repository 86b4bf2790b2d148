package handlers_test

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestNeedsAttention: the Overview's Needs attention lists payout links whose message did not
// reach the payee and webhook endpoints whose every recent delivery failed, each linked to where
// it is fixed; a delivered link and an endpoint that took a delivery are not counted. The
// service's worker is stopped: the test delivers.
func TestNeedsAttention(t *testing.T) {
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	ctx := t.Context()
	h.deposit(100_00)
	for _, email := range []string{"bounce@example.com", "bo@example.com"} {
		h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 1_00, Payee: &payouts.Payee{Email: email},
			Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
	}
	if _, err := h.env.Service.DeliverDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	down, err := h.payouts.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: answering(t, 503, "down") + "/down"})
	if err != nil {
		t.Fatal(err)
	}
	up, err := h.payouts.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: answering(t, 200, "ok") + "/up"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*payouts.WebhookEndpoint{down, up} {
		if _, err := h.payouts.SendTestWebhook(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.env.Service.DeliverWebhooks(ctx, 100); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role dashstore.Role
		want []string
	}{
		{dashstore.RoleAdmin, []string{`href="/payout-links?status=delivery_failed"`, `data-testid="attention-undelivered-links"`,
			`href="/webhooks/` + down.ID + `"`, `data-testid="attention-failing-endpoint"`}},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			a, _ := h.signedIn(tc.role)
			page := a.get("/overview")
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, tc.want...)
			wantBody(t, page, "Payout links not delivered", "Webhook endpoint failing every delivery")
			wantBody(t, page, `data-testid="attention-undelivered-links">1<`)
			if got := strings.Count(page.body, `data-testid="attention-failing-endpoint"`); got != 1 {
				t.Errorf("%d failing endpoints listed, want the one", got)
			}
		})
	}
	// The link leads to the links that need a resend or a corrected contact.
	manager, _ := h.signedIn(dashstore.RoleManager)
	wantBody(t, manager.get("/payout-links?status=delivery_failed"), "bounce@example.com")
}

// TestUndeliveredLinkOffersResend: the page of a link whose message bounced offers to send it
// again to those who may issue links, and the resend is audited; a delivered link's page and an
// operator who may not issue links see no such button.
func TestUndeliveredLinkOffersResend(t *testing.T) {
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	h.deposit(100_00)
	bounced := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 1_00, Payee: &payouts.Payee{Email: "bounce@example.com"},
		Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
	delivered := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 1_00, Payee: &payouts.Payee{Email: "bo@example.com"},
		Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
	if _, err := h.env.Service.DeliverDue(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	ops, _ := h.signedIn(dashstore.RoleOperations)
	support, _ := h.signedIn(dashstore.RoleSupport)
	resend := `action="/payout-links/` + bounced.ID + `/resend"`
	for _, tc := range []struct {
		name  string
		a     *agent
		link  string
		offer bool
	}{
		{"bounced, operations", ops, bounced.ID, true},
		{"delivered, operations", ops, delivered.ID, false},
		{"bounced, support", support, bounced.ID, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := tc.a.get("/payout-links/" + tc.link)
			wantStatus(t, page, http.StatusOK)
			if got := strings.Contains(page.body, `/resend"`); got != tc.offer {
				t.Errorf("resend offered: %v, want %v", got, tc.offer)
			}
			if tc.offer {
				wantBody(t, page, resend, "Send again")
			}
		})
	}
	wantRedirect(t, ops.post("/payout-links/"+bounced.ID+"/resend", nil), "/payout-links/"+bounced.ID)
	if got := h.auditActions("payout_link", bounced.ID); len(got) == 0 || got[0].Action != "payout_link.resend" {
		t.Errorf("audit %+v, want the resend", got)
	}
}

// TestNeedsAttentionAsksOnce: the Overview reads Needs attention from the service's stats, one
// call, however many webhook endpoints the app has: no health read per endpoint and no scan of
// the year's tax rows.
func TestNeedsAttentionAsksOnce(t *testing.T) {
	requests := &requestLog{}
	h := newHarnessWith(t, harnessSetup{requests: requests, service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	for _, path := range []string{"/a", "/b", "/c"} {
		if _, err := h.payouts.CreateWebhookEndpoint(t.Context(), payouts.CreateWebhookEndpointRequest{URL: answering(t, 503, "down") + path}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := h.signedIn(dashstore.RoleAdmin)
	wantStatus(t, a.get("/overview"), http.StatusOK) // the extensions are asked once per client
	requests.take()
	wantStatus(t, a.get("/overview"), http.StatusOK)
	counts := map[string]int{}
	for _, r := range requests.take() {
		switch {
		case strings.HasSuffix(r, "/attempts"):
			counts["endpoint attempts"]++
		case strings.Contains(r, "/tax-years/"):
			counts["tax year"]++
		case strings.HasSuffix(r, "/stats"):
			counts["stats"]++
		}
	}
	if want := map[string]int{"stats": 1}; !maps.Equal(counts, want) {
		t.Errorf("the overview asked %v, want %v", counts, want)
	}
}
