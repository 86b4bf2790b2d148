package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"
	"github.com/stripe/stripe-go/v83/webhook"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/sanctionstest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
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
	t.Parallel()
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

// TestListRails names the rail of every platform and whether a sanctions list is loaded, and the
// extension is advertised.
func TestListRails(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, withPayPal(t, paypaltest.New(t)))
	rails := servicetest.Want[payouts.Rails](t, env.Do(t, "GET", "/v2/rails", nil), "rails", http.StatusOK)
	want := []payouts.PlatformRail{{Platform: payouts.PlatformPayPal, Rail: "paypal"}, {Platform: payouts.PlatformVenmo, Rail: "sandbox"},
		{Platform: payouts.PlatformCashApp, Rail: "sandbox"}, {Platform: payouts.PlatformACH, Rail: "sandbox"}}
	for _, w := range want {
		if !slices.Contains(rails.Rails, w) {
			t.Errorf("rails %+v lack %+v", rails.Rails, w)
		}
	}
	if rails.SanctionsListLoaded {
		t.Error("sanctions_list_loaded before any list was loaded")
	}
	l, dir := sanctionstest.Load(t, map[string]string{"sdn.csv": sanctionstest.Individual(7001, "AL-RASHID, Ahmad Yusuf", "SDGT", "DOB 12 Mar 1970.")})
	if _, err := env.Service.LoadSanctions(t.Context(), l, dir); err != nil {
		t.Fatal(err)
	}
	if rails := servicetest.Want[payouts.Rails](t, env.Do(t, "GET", "/v2/rails", nil), "rails", http.StatusOK); !rails.SanctionsListLoaded {
		t.Error("sanctions_list_loaded false once a list was loaded")
	}
	x := servicetest.Want[payouts.Extensions](t, env.Do(t, "GET", "/v2/extensions", nil), "extensions", http.StatusOK)
	if !slices.Contains(x.Extensions, payouts.ExtRails) {
		t.Errorf("extensions %v lack rails", x.Extensions)
	}
	call{method: "GET", path: "/v2/rails", header: map[string]string{"Authorization": ""}, status: 401, code: payouts.EUnauthorized}.do(t, env)
}

// stripeSecret signs the Stripe events of the tests.
const stripeSecret = "whsec_test_secret"

// withStripe serves ACH through a Stripe rail whose API is never reached: its notifications are
// checked by their signature alone.
func withStripe(t *testing.T) servicetest.Option {
	t.Helper()
	rail, err := stripe.New(stripe.Config{APIKey: "sk_test_123", FinancialAccount: "fa_123", WebhookSecret: stripeSecret,
		URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	return servicetest.WithConfig(func(cfg *payoutd.Config) {
		cfg.Providers = []payoutd.RailProvider{{Name: "stripe",
			Rails: map[payouts.Platform]service.Rail{payouts.PlatformACH: rail}, Webhook: rail}}
	})
}

// signedByStripe is body with the Stripe-Signature header Stripe would send it with, under secret.
func signedByStripe(body, secret string) map[string]string {
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(body), Secret: secret, Timestamp: time.Now()})
	return map[string]string{"Authorization": "", "Stripe-Signature": signed.Header}
}

// TestStripeWebhookUnreadable: an event signed with the endpoint's secret that cannot be read (not
// JSON, not an event, fields of the wrong type, an outbound payment that does not decode, another
// API version's) is answered 400, never 500; the signature is checked first, so the same bodies
// unsigned are 401, and a readable event of no interest is taken.
func TestStripeWebhookUnreadable(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, withStripe(t))
	hook := "/v2/rail-webhooks/stripe"
	event := func(apiVersion, typ, data string) string {
		return fmt.Sprintf(`{"id":"evt_1","object":"event","api_version":%q,"created":%d,"livemode":false,"pending_webhooks":1,"type":%q,"data":%s}`,
			apiVersion, time.Now().Unix(), typ, data)
	}
	returned := "treasury.outbound_payment.returned"
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"not JSON", `{"id":"evt_1","object":"event",`, 400, payouts.EInvalidInput},
		{"a thin event", `{"id":"evt_1","object":"v2.core.event","type":"v1.treasury.outbound_payment.returned"}`, 400, payouts.EInvalidInput},
		{"data not an object", event(stripeapi.APIVersion, returned, `{"object":5}`), 400, payouts.EInvalidInput},
		{"created not a time", strings.Replace(event(stripeapi.APIVersion, returned, `{"object":{}}`), `"created":`, `"created":"yesterday","x":`, 1), 400, payouts.EInvalidInput},
		{"the payment does not decode", event(stripeapi.APIVersion, returned,
			`{"object":{"id":"obp_1","object":"treasury.outbound_payment","amount":"lots","metadata":{"disburse_transfer_id":"0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"}}}`),
			400, payouts.EInvalidInput},
		{"another API version", event("2020-08-27", returned, `{"object":{"id":"obp_1","object":"treasury.outbound_payment"}}`), 400, payouts.EInvalidInput},
		{"readable, of no interest", event(stripeapi.APIVersion, "treasury.outbound_payment.created", `{"object":{"id":"obp_1"}}`), 204, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call{method: "POST", path: hook, body: tc.body, header: signedByStripe(tc.body, stripeSecret), status: tc.status, code: tc.code}.do(t, env)
			call{method: "POST", path: hook, body: tc.body, header: signedByStripe(tc.body, "whsec_other"), status: 401, code: payouts.EUnauthorized}.do(t, env)
		})
	}
}

// TestPayPalWebhookThrottle posts notifications to /v2/rail-webhooks/paypal as a forger would,
// counting the verify-webhook-signature calls that reach the PayPal double. Ones that cannot be
// PayPal's (a signature header missing, a certificate URL off PayPal's host, a body that is not
// a PayPal event, an item naming no payout) are refused with no call, and events with nothing
// to book are taken with none; neither counts against the throttle. Past the throttle's limit
// for one address a forged notification, and PayPal's own, are answered 429 with no call; once
// the window has passed, PayPal's retry is verified and completes the payout.
func TestPayPalWebhookThrottle(t *testing.T) {
	t.Parallel()
	perAddress := service.DefaultLimits().RailWebhookCallsPerAddress
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			double := paypaltest.New(t)
			clock := testclock.New(start)
			env, creds, user := startWithUser(t, 1000_00, append(eng.opts(), withPayPal(t, double), servicetest.WithClock(clock),
				servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval, c.TrustedProxies = -1, []string{"127.0.0.1"} }))...)
			env.DoAs(t, creds, "PUT", "/v2/users/"+user.ID+"/payout-methods", map[string]any{"platform": "paypal", "email": "ada@example.com"})
			tr := servicetest.Want[payouts.Transfer](t, env.DoAs(t, creds, "POST", "/v2/payouts", map[string]any{"user_id": user.ID,
				"amount": 100_00, "platform": "paypal", "fund": true}), "payout", http.StatusCreated)
			hook := "/v2/rail-webhooks/paypal"
			succeeded := itemEvent(t, "SUCCEEDED", "SUCCESS", tr.ID, tr.ExternalData.ExternalID, "PAYPAL")
			from := func(addr string, header map[string]string) map[string]string {
				h := maps.Clone(header)
				h["X-Forwarded-For"] = addr
				return h
			}
			with := func(name, value string) map[string]string {
				h := webhookHeaders(paypaltest.GoodSig)
				h[name] = value
				return h
			}
			noItem := strings.Replace(succeeded, `"sender_item_id":"`+tr.ID+`"`, `"sender_item_id":""`, 1)
			notOurs := strings.Replace(succeeded, `"sender_item_id":"`+tr.ID+`"`, `"sender_item_id":"order-42"`, 1)
			batch := strings.Replace(succeeded, "PAYMENT.PAYOUTS-ITEM.SUCCEEDED", "PAYMENT.PAYOUTSBATCH.SUCCESS", 1)
			for _, c := range []call{
				{name: "no signature", body: succeeded, header: with("Paypal-Transmission-Sig", ""), status: 401, code: payouts.EUnauthorized},
				{name: "no certificate URL", body: succeeded, header: with("Paypal-Cert-Url", ""), status: 401, code: payouts.EUnauthorized},
				{name: "certificate elsewhere", body: succeeded, header: with("Paypal-Cert-Url", "https://certs.example.com/CERT-1"), status: 401, code: payouts.EUnauthorized},
				{name: "certificate on a look-alike host", body: succeeded, header: with("Paypal-Cert-Url", "https://api.paypal.com.example.com/CERT-1"), status: 401, code: payouts.EUnauthorized},
				{name: "certificate behind credentials", body: succeeded, header: with("Paypal-Cert-Url", "https://api.paypal.com@example.com/CERT-1"), status: 401, code: payouts.EUnauthorized},
				{name: "certificate over http", body: succeeded, header: with("Paypal-Cert-Url", "http://api.paypal.com/v1/notifications/certs/CERT-1"), status: 401, code: payouts.EUnauthorized},
				{name: "certificate for the metadata service", body: succeeded, header: with("Paypal-Cert-Url", "https://169.254.169.254/latest"), status: 401, code: payouts.EUnauthorized},
				{name: "body not JSON", body: `{"id":`, header: webhookHeaders(paypaltest.GoodSig), status: 401, code: payouts.EUnauthorized},
				{name: "body not an event", body: `{"name":"x"}`, header: webhookHeaders(paypaltest.GoodSig), status: 401, code: payouts.EUnauthorized},
				{name: "an item naming no payout (made by hand on the account)", body: noItem, header: webhookHeaders(paypaltest.GoodSig), status: 204},
				{name: "an item not ours", body: notOurs, header: webhookHeaders(paypaltest.GoodSig), status: 204},
				{name: "a batch event", body: batch, header: webhookHeaders(paypaltest.GoodSig), status: 204},
			} {
				c.method, c.path, c.header = "POST", hook, from("203.0.113.5", c.header)
				c.do(t, env)
				if n := double.Verifies(); n != 0 {
					t.Fatalf("%s: %d calls to PayPal's verify-webhook-signature, want none", c.name, n)
				}
			}

			forged := call{method: "POST", path: hook, body: succeeded, header: from("203.0.113.5", webhookHeaders("forged")),
				status: 401, code: payouts.EUnauthorized}
			for range perAddress.Max {
				forged.do(t, env)
			}
			forged.status, forged.code = 429, payouts.ETooManyRequests
			forged.do(t, env)
			genuine := call{method: "POST", path: hook, body: succeeded, header: from("203.0.113.5", webhookHeaders(paypaltest.GoodSig)),
				status: 429, code: payouts.ETooManyRequests}
			genuine.do(t, env)
			if n := double.Verifies(); n != perAddress.Max {
				t.Fatalf("%d calls to PayPal's verify-webhook-signature, want %d: none past the limit", n, perAddress.Max)
			}

			clock.Advance(perAddress.Per)
			genuine.status, genuine.code = 204, ""
			genuine.do(t, env)
			got := servicetest.Want[payouts.Transfer](t, env.DoAs(t, creds, "GET", "/v2/transfers/"+tr.ID, nil), "get", http.StatusOK)
			if got.Status != payouts.TransferCompleted || double.Verifies() != perAddress.Max+1 {
				t.Fatalf("after PayPal's retry past the window: %s with %d calls, want completed with %d", got.Status, double.Verifies(), perAddress.Max+1)
			}
			double.Check(t)
		})
	}
}
