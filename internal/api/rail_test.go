package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// withPayPal serves PayPal (not Venmo) through the PayPal double.
func withPayPal(t *testing.T, double *paypaltest.Server) servicetest.Option {
	t.Helper()
	c, err := paypal.New(paypal.Config{BaseURL: double.URL, ClientID: paypaltest.ClientID, ClientSecret: paypaltest.ClientSecret,
		WebhookID: paypaltest.WebhookID, HTTP: double.Client()})
	if err != nil {
		t.Fatal(err)
	}
	rails := c.Rails()
	delete(rails, payouts.PlatformVenmo)
	return servicetest.WithConfig(func(cfg *payoutd.Config) {
		cfg.Providers = []payoutd.RailProvider{{Name: "paypal", Rails: rails, Webhook: c}}
	})
}

// itemEvent is a PayPal payout item's webhook event for a payout, as the reference shapes it.
func itemEvent(t *testing.T, event, status, transferID, batchID, wallet string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": "WH-" + status + "-" + transferID, "event_version": "1.0", "resource_type": "payouts_item",
		"event_type": "PAYMENT.PAYOUTS-ITEM." + event, "resource": map[string]any{"payout_item_id": "I" + batchID,
			"transaction_status": status, "payout_batch_id": batchID,
			"payout_item": map[string]any{"sender_item_id": transferID, "recipient_wallet": wallet, "receiver": "ada@example.com",
				"recipient_type": "EMAIL", "amount": map[string]any{"value": "100.00", "currency": "USD"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// webhookHeaders are PayPal's signature headers, signed (or not) as the double verifies.
func webhookHeaders(sig string) map[string]string {
	return map[string]string{"Authorization": "", "Paypal-Auth-Algo": "SHA256withRSA",
		"Paypal-Cert-Url": "https://api-m.sandbox.paypal.com/v1/notifications/certs/CERT-1", "Paypal-Transmission-Id": "t-1",
		"Paypal-Transmission-Sig": sig, "Paypal-Transmission-Time": "2026-03-02T12:00:00Z"}
}

// TestRailWebhook pays a user through the PayPal double and has PayPal's notifications reach
// POST /v2/rail-webhooks/paypal with no API key: a forged one is refused and moves nothing; a
// verified success completes the payout, and again changes nothing; a later return gives the
// money back once; a notification of Venmo, which PayPal does not serve here, or to a provider
// not configured, moves nothing.
func TestRailWebhook(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			double := paypaltest.New(t)
			env, creds, user := startWithUser(t, 1000_00, append(eng.frozen(), withPayPal(t, double))...)
			env.DoAs(t, creds, "PUT", "/v2/users/"+user.ID+"/payout-methods", map[string]any{"platform": "paypal", "email": "ada@example.com"})
			before := getApp(t, env, creds).Wallet
			resp := env.DoAs(t, creds, "POST", "/v2/payouts", map[string]any{"user_id": user.ID, "amount": 100_00,
				"platform": "paypal", "fund": true})
			tr := servicetest.Want[payouts.Transfer](t, resp, "payout", http.StatusCreated)
			if tr.Status != payouts.TransferPending || tr.ExternalData.ExternalID == "" || double.Batches() != 1 {
				t.Fatalf("payout %s, external id %q, %d batches: want pending, submitted to PayPal once", tr.Status, tr.ExternalData.ExternalID, double.Batches())
			}
			hook := "/v2/rail-webhooks/paypal"
			succeeded := itemEvent(t, "SUCCEEDED", "SUCCESS", tr.ID, tr.ExternalData.ExternalID, "PAYPAL")
			status := func() payouts.Transfer {
				t.Helper()
				return servicetest.Want[payouts.Transfer](t, env.DoAs(t, creds, "GET", "/v2/transfers/"+tr.ID, nil), "get", http.StatusOK)
			}
			runCalls(t, env, []call{
				{name: "forged", method: "POST", path: hook, body: succeeded, header: webhookHeaders("forged"), status: 401, code: payouts.EUnauthorized},
				{name: "unsigned", method: "POST", path: hook, body: succeeded, header: map[string]string{"Authorization": ""}, status: 401, code: payouts.EUnauthorized},
				{name: "not configured", method: "POST", path: "/v2/rail-webhooks/stripe", body: succeeded, header: webhookHeaders(paypaltest.GoodSig), status: 404, code: payouts.ENotFound},
				{name: "venmo not PayPal's here", method: "POST", path: hook, body: itemEvent(t, "SUCCEEDED", "SUCCESS", tr.ID, tr.ExternalData.ExternalID, "VENMO"),
					header: webhookHeaders(paypaltest.GoodSig), status: 204},
			})
			if got := status(); got.Status != payouts.TransferPending {
				t.Fatalf("after refused notifications the payout is %s, want pending", got.Status)
			}
			for range 2 {
				call{method: "POST", path: hook, body: succeeded, header: webhookHeaders(paypaltest.GoodSig), status: 204}.do(t, env)
			}
			if got := status(); got.Status != payouts.TransferCompleted || len(got.StatusHistory) != 2 {
				t.Fatalf("after the success twice: %s, history %+v; want completed once", got.Status, got.StatusHistory)
			}
			returned := itemEvent(t, "RETURNED", "RETURNED", tr.ID, tr.ExternalData.ExternalID, "PAYPAL")
			for range 2 {
				call{method: "POST", path: hook, body: returned, header: webhookHeaders(paypaltest.GoodSig), status: 204}.do(t, env)
			}
			got := status()
			if got.Status != payouts.TransferFailed || got.FailureReason == "" || len(got.StatusHistory) != 3 {
				t.Fatalf("after the return twice: %s (%q), history %+v; want failed once", got.Status, got.FailureReason, got.StatusHistory)
			}
			if after := getApp(t, env, creds).Wallet; after != before {
				t.Errorf("app wallet %+v after the return, want %+v", after, before)
			}
			env.CheckLedger(t)
			double.Check(t)
		})
	}
}

// TestListRails names the rail of every platform, and the extension is advertised.
func TestListRails(t *testing.T) {
	env := servicetest.Start(t, withPayPal(t, paypaltest.New(t)))
	rails := servicetest.Want[payouts.Rails](t, env.Do(t, "GET", "/v2/rails", nil), "rails", http.StatusOK)
	want := []payouts.PlatformRail{{Platform: payouts.PlatformPayPal, Rail: "paypal"}, {Platform: payouts.PlatformVenmo, Rail: "sandbox"},
		{Platform: payouts.PlatformCashApp, Rail: "sandbox"}, {Platform: payouts.PlatformACH, Rail: "sandbox"}}
	for _, w := range want {
		if !slices.Contains(rails.Rails, w) {
			t.Errorf("rails %+v lack %+v", rails.Rails, w)
		}
	}
	x := servicetest.Want[payouts.Extensions](t, env.Do(t, "GET", "/v2/extensions", nil), "extensions", http.StatusOK)
	if !slices.Contains(x.Extensions, payouts.ExtRails) {
		t.Errorf("extensions %v lack rails", x.Extensions)
	}
	call{method: "GET", path: "/v2/rails", header: map[string]string{"Authorization": ""}, status: 401, code: payouts.EUnauthorized}.do(t, env)
}
