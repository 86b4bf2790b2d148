package twiliosms_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/disburse/disburse/internal/notify/twiliosms"
	"github.com/disburse/disburse/internal/notify/twiliosms/twiliotest"
	"github.com/disburse/disburse/internal/service"
)

// TestSend texts through the SDK to the double, which checks each request against the pairs
// recorded from Twilio's API reference and answers with them.
func TestSend(t *testing.T) {
	const callback = "https://pay.example.com/api/v2/message-status/twilio/msg_1"
	msg := service.Message{Key: "msg_1", AppID: "app1", AppName: "Acme", Channel: "sms", To: "+44 7700900123",
		Body: "Acme sent you $25.00. Claim it here: https://pay.example.com/l/abc?k=xyz", StatusCallback: callback}
	tests := []struct {
		name        string
		cfg         twiliosms.Config
		msg         service.Message
		fail        int
		want        url.Values
		undelivered bool // the error, if any: undeliverable, or one to retry
		err         bool
	}{
		{"from a number", twiliosms.Config{From: "+14155552345"}, msg, 0,
			url.Values{"To": {"+447700900123"}, "From": {"+14155552345"}, "Body": {msg.Body}, "StatusCallback": {callback}}, false, false},
		{"through a Messaging Service", twiliosms.Config{MessagingServiceSID: "MGaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, msg, 0,
			url.Values{"To": {"+447700900123"}, "MessagingServiceSid": {"MGaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, "Body": {msg.Body},
				"StatusCallback": {callback}}, false, false},
		{"an invalid number is undeliverable", twiliosms.Config{From: "+14155552345"},
			service.Message{Channel: "sms", To: twiliotest.InvalidTo, Body: "Hello!"}, 0,
			url.Values{"To": {twiliotest.InvalidTo}, "From": {"+14155552345"}, "Body": {"Hello!"}}, true, true},
		{"Twilio down is tried again", twiliosms.Config{From: "+14155552345"}, msg, http.StatusServiceUnavailable,
			url.Values{"To": {"+447700900123"}, "From": {"+14155552345"}, "Body": {msg.Body}, "StatusCallback": {callback}}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := twiliotest.New(t)
			d.FailWith(tt.fail)
			tt.cfg.AccountSID, tt.cfg.AuthToken, tt.cfg.APIBase = twiliotest.AccountSID, twiliotest.AuthToken, d.URL
			n, err := twiliosms.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = n.Send(context.Background(), tt.msg)
			if (err != nil) != tt.err || errors.Is(err, service.ErrUndeliverable) != tt.undelivered {
				t.Fatalf("Send: %v, want error %v, undeliverable %v", err, tt.err, tt.undelivered)
			}
			reqs := d.Requests()
			if len(reqs) != 1 || reqs[0].Encode() != tt.want.Encode() {
				t.Fatalf("Twilio got %v, want %v", reqs, tt.want)
			}
		})
	}
}

// TestReport checks status callbacks: signed by Twilio they are read; forged, altered, or
// another account's, they are refused.
func TestReport(t *testing.T) {
	const callback = "https://pay.example.com/api/v2/message-status/twilio/msg_1"
	n, err := twiliosms.New(twiliosms.Config{AccountSID: twiliotest.AccountSID, AuthToken: twiliotest.AuthToken, From: "+14155552345"})
	if err != nil {
		t.Fatal(err)
	}
	signed := func(form url.Values, token, at string) http.Header {
		return http.Header{"X-Twilio-Signature": {twiliotest.Sign(token, at, form)}}
	}
	delivered := twiliotest.StatusCallback("SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "delivered", "")
	undelivered := twiliotest.StatusCallback("SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "undelivered", "30005")
	altered := func() (url.Values, http.Header) {
		h := signed(undelivered, twiliotest.AuthToken, callback)
		f := twiliotest.StatusCallback("SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "delivered", "30005")
		return f, h
	}
	alteredForm, alteredHeader := altered()
	other := twiliotest.StatusCallback("SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "delivered", "")
	other.Set("AccountSid", "ACbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	tests := []struct {
		name       string
		form       url.Values
		header     http.Header
		unverified bool
		final      bool
		want       service.MessageReport
	}{
		{"delivered", delivered, signed(delivered, twiliotest.AuthToken, callback), false, true, service.MessageReport{Delivered: true}},
		{"undelivered", undelivered, signed(undelivered, twiliotest.AuthToken, callback), false, true,
			service.MessageReport{Reason: "Twilio reports the text undelivered (error 30005)"}},
		{"sent is no final word", twiliotest.StatusCallback("SMa", "sent", ""),
			signed(twiliotest.StatusCallback("SMa", "sent", ""), twiliotest.AuthToken, callback), false, false, service.MessageReport{}},
		{"unsigned", delivered, http.Header{}, true, false, service.MessageReport{}},
		{"signed with another token", delivered, signed(delivered, "forged", callback), true, false, service.MessageReport{}},
		{"signed for another URL", delivered, signed(delivered, twiliotest.AuthToken, callback+"2"), true, false, service.MessageReport{}},
		{"altered after signing", alteredForm, alteredHeader, true, false, service.MessageReport{}},
		{"another account's", other, signed(other, twiliotest.AuthToken, callback), true, false, service.MessageReport{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, final, err := n.Report(callback, tt.header, []byte(tt.form.Encode()))
			var unverified *service.RailUnverified
			if errors.As(err, &unverified) != tt.unverified || (!tt.unverified && err != nil) {
				t.Fatalf("Report: %v, want unverified %v", err, tt.unverified)
			}
			if final != tt.final || got != tt.want {
				t.Fatalf("Report = %+v, %v; want %+v, %v", got, final, tt.want, tt.final)
			}
		})
	}
}
