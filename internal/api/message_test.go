package api_test

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/notify/smtpmail"
	"github.com/disburse/disburse/internal/notify/twiliosms"
	"github.com/disburse/disburse/internal/notify/twiliosms/twiliotest"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/mailpit"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestPayoutLinkByEmail sends a payout link by email through a real SMTP server (Mailpit), on
// both engines: the email says who pays, how much and until when, in a text and an HTML part,
// and its claim URL opens the claim page. The payee's messages list it as sent.
func TestPayoutLinkByEmail(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			mp := mailpit.Start(t)
			n, err := smtpmail.New(smtpmail.Config{URL: mp.SMTPURL, From: "payouts@pay.example.com", TLS: mp.TLS})
			if err != nil {
				t.Fatal(err)
			}
			opts := append(engine.frozen(), servicetest.WithConfig(func(c *payoutd.Config) {
				c.Messages = []payoutd.MessageProvider{{Name: "smtp", Channels: []string{"email"}, Notifier: n}}
			}))
			env, creds, user := startWithUser(t, 1_000_00, opts...)
			body := emailDelivery(40_00, "grace@example.com")
			body["user_id"] = user.ID
			l := createLink(t, env, creds, body)
			if got := deliver(t, env); got != 1 {
				t.Fatalf("delivered %d messages, want 1", got)
			}
			if got := getLink(t, env, l.ID); got.Status != payouts.LinkDelivered {
				t.Fatalf("the link is %s, want delivered", got.Status)
			}
			got := mp.Messages(t)
			if len(got) != 1 {
				t.Fatalf("Mailpit received %d messages, want 1", len(got))
			}
			m := got[0]
			claimURL := getLink(t, env, l.ID).Link
			for _, want := range []string{"Test app sent you $40.00.", "Thanks for March", claimURL, "until you claim the money or Test app cancels"} {
				if !strings.Contains(m.Text, want) {
					t.Errorf("the text part lacks %q:\n%s", want, m.Text)
				}
			}
			if m.From.Name != "Test app" || m.Subject != "Test app sent you $40.00" || len(m.To) != 1 || m.To[0].Address != "grace@example.com" ||
				!strings.Contains(m.HTML, `href="`+strings.ReplaceAll(claimURL, "&", "&amp;")+`"`) {
				t.Errorf("received From %+v, To %+v, subject %q, HTML:\n%s", m.From, m.To, m.Subject, m.HTML)
			}
			res, err := env.HTTP.Get(claimURL)
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "Claim $40.00") {
				t.Fatalf("the claim URL answered %d:\n%s", res.StatusCode, page)
			}
			var msgs payouts.List[payouts.Message]
			call{method: "GET", path: "/v2/users/" + user.ID + "/messages", as: &creds, status: http.StatusOK}.do(t, env).Decode(t, &msgs)
			if len(msgs.Data) != 1 || msgs.Data[0].Status != payouts.MessageSent || msgs.Data[0].PayoutLinkID != l.ID ||
				msgs.Data[0].Channel != "email" || msgs.Data[0].To != "grace@example.com" {
				t.Fatalf("the user's messages: %+v", msgs.Data)
			}
		})
	}
}

// TestPayoutLinkBySMS texts a payout link through Twilio's SDK to the double recorded from
// Twilio's API reference, on both engines, then posts Twilio's status callbacks: forged or
// altered ones are refused and change nothing; a genuine "undelivered" fails the link's
// delivery, with its event. A number in a country not configured is refused at once.
func TestPayoutLinkBySMS(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			d := twiliotest.New(t)
			n, err := twiliosms.New(twiliosms.Config{AccountSID: twiliotest.AccountSID, AuthToken: twiliotest.AuthToken,
				From: "+14155552345", APIBase: d.URL})
			if err != nil {
				t.Fatal(err)
			}
			opts := append(engine.frozen(), servicetest.WithConfig(func(c *payoutd.Config) {
				c.Messages = []payoutd.MessageProvider{{Name: twiliosms.Name, Channels: []string{"sms"}, Notifier: n, Status: n}}
				c.SMSCountries = []string{"1"}
			}))
			env, creds, _ := startWithUser(t, 1_000_00, opts...)
			l := createLink(t, env, creds, smsDelivery(40_00, "4155550123"))
			if got := deliver(t, env); got != 1 {
				t.Fatalf("delivered %d messages, want 1", got)
			}
			reqs := d.Requests()
			if len(reqs) != 1 {
				t.Fatalf("Twilio got %d requests, want 1", len(reqs))
			}
			sent := reqs[0]
			callback := env.Origin + "/api/v2/message-status/twilio/msg_1"
			if sent.Get("To") != "+14155550123" || sent.Get("From") != "+14155552345" || sent.Get("StatusCallback") != callback ||
				!strings.Contains(sent.Get("Body"), "Test app sent you $40.00.") || !strings.Contains(sent.Get("Body"), getLink(t, env, l.ID).Link) {
				t.Fatalf("Twilio got %v", sent)
			}

			post := func(form url.Values, signature string, status int) {
				t.Helper()
				call{method: "POST", path: "/v2/message-status/twilio/msg_1", body: form.Encode(), status: status,
					header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": signature}}.do(t, env)
			}
			undelivered := twiliotest.StatusCallback("SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "undelivered", "30003")
			altered := url.Values{}
			for k, v := range undelivered {
				altered[k] = v
			}
			altered.Set("ErrorCode", "30005")
			post(undelivered, twiliotest.Sign("forged", callback, undelivered), http.StatusUnauthorized)
			post(undelivered, "", http.StatusUnauthorized)
			post(altered, twiliotest.Sign(twiliotest.AuthToken, callback, undelivered), http.StatusUnauthorized)
			if got := getLink(t, env, l.ID); got.Status != payouts.LinkDelivered {
				t.Fatalf("after forged callbacks the link is %s, want delivered", got.Status)
			}

			post(undelivered, twiliotest.Sign(twiliotest.AuthToken, callback, undelivered), http.StatusNoContent)
			if got := getLink(t, env, l.ID); got.Status != payouts.LinkDeliveryFailed {
				t.Fatalf("after Twilio reported it undelivered the link is %s, want delivery_failed", got.Status)
			}
			var events payouts.List[payouts.Event]
			call{method: "GET", path: "/v2/events?limit=100", as: &creds, status: http.StatusOK}.do(t, env).Decode(t, &events)
			if !slices.ContainsFunc(events.Data, func(e payouts.Event) bool {
				return e.Type == payouts.EventPayoutLinkDeliveryFailed && e.ObjectID == l.ID
			}) {
				t.Fatal("no payout_link.delivery_failed event")
			}

			call{method: "POST", path: "/v2/payout-links", as: &creds, body: smsDelivery(40_00, "+44 7700900123"),
				status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "payee.phone_number"}.do(t, env)
			if len(d.Requests()) != 1 {
				t.Fatal("a refused link reached Twilio")
			}
		})
	}
}
