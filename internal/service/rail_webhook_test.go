package service_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestRailWebhookCallsThrottled has PayPal's notifications of a payout, forged and genuine, sent
// from three addresses, counting the verify-webhook-signature calls that reach the PayPal double:
// past the limit for an address, or for all of PayPal's, a notification is too-many-requests and
// no call is made; a refusal for the address does not count against all; once the window has
// passed, PayPal's retry is verified and completes the payout.
func TestRailWebhookCallsThrottled(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		double := paypaltest.New(t)
		client, err := paypal.New(paypal.Config{BaseURL: double.URL, ClientID: paypaltest.ClientID, ClientSecret: paypaltest.ClientSecret,
			WebhookID: paypaltest.WebhookID, HTTP: double.Client()})
		if err != nil {
			t.Fatal(err)
		}
		e := newEnvOn(t, dsn, client.Rails(), deposit)
		window := time.Minute
		e.cfg.RailWebhooks = map[string]service.RailWebhook{"paypal": client}
		e.cfg.RailNames = map[payouts.Platform]string{payouts.PlatformPayPal: "paypal", payouts.PlatformVenmo: "paypal"}
		e.cfg.Limits = service.Limits{RailWebhookCallsPerAddress: service.Rate{Max: 2, Per: window},
			RailWebhookCalls: service.Rate{Max: 3, Per: window}}
		e.open(t)
		e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"})
		tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: payoutAmount,
			Platform: payouts.PlatformPayPal, Fund: true, TaxExempt: true})
		if err != nil {
			t.Fatal(err)
		}
		event, err := json.Marshal(map[string]any{"id": "WH-1", "event_version": "1.0", "resource_type": "payouts_item",
			"event_type": "PAYMENT.PAYOUTS-ITEM.SUCCEEDED", "resource": map[string]any{"payout_item_id": "I1",
				"transaction_status": "SUCCESS", "payout_batch_id": tr.ExternalData.ExternalID,
				"payout_item": map[string]any{"sender_item_id": tr.ID, "recipient_wallet": "PAYPAL"}}})
		if err != nil {
			t.Fatal(err)
		}
		send := func(addr, sig, code string, calls int) {
			t.Helper()
			h := http.Header{}
			h.Set("Paypal-Auth-Algo", "SHA256withRSA")
			h.Set("Paypal-Cert-Url", "https://api.paypal.com/v1/notifications/certs/CERT-1")
			h.Set("Paypal-Transmission-Id", "t-1")
			h.Set("Paypal-Transmission-Sig", sig)
			h.Set("Paypal-Transmission-Time", "2026-03-02T12:00:00Z")
			wantCode(t, e.svc.ReceiveRailWebhook(e.ctx, "paypal", addr, h, event), code)
			if n := double.Verifies(); n != calls {
				t.Fatalf("%d calls to PayPal's verify-webhook-signature, want %d", n, calls)
			}
		}
		send("203.0.113.1", "forged", payouts.EUnauthorized, 1)
		send("203.0.113.1", "forged", payouts.EUnauthorized, 2)
		send("203.0.113.1", "forged", payouts.ETooManyRequests, 2) // the address's limit
		send("203.0.113.1", paypaltest.GoodSig, payouts.ETooManyRequests, 2)
		send("203.0.113.2", "forged", payouts.EUnauthorized, 3)
		send("203.0.113.3", "forged", payouts.ETooManyRequests, 3) // all of PayPal's
		send("203.0.113.3", paypaltest.GoodSig, payouts.ETooManyRequests, 3)
		if got := e.transfer(t, tr.ID); got.Status != payouts.TransferPending {
			t.Fatalf("payout %s before any notification was verified, want pending", got.Status)
		}
		e.clock.Advance(window)
		send("203.0.113.3", paypaltest.GoodSig, "", 4)
		if got := e.transfer(t, tr.ID); got.Status != payouts.TransferCompleted {
			t.Fatalf("payout %s after PayPal's retry was verified, want completed", got.Status)
		}
		double.Check(t)
	})
}
