package smtpmail_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/notify/smtpmail"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/mailpit"
)

// TestSend sends through a real Mailpit over STARTTLS with authentication, and reads back what
// it received: the app's name on the From address, its reply-to, a Message-ID that is the same
// on a second try of the same outbox message, and both parts. A recipient the server refuses
// with a 550 is undeliverable; a server that cannot be reached is a failure worth retrying.
func TestSend(t *testing.T) {
	mp := mailpit.Start(t)
	n, err := smtpmail.New(smtpmail.Config{URL: mp.SMTPURL, From: "payouts@pay.example.com", TLS: mp.TLS})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msg := service.Message{Key: "msg_7", AppID: "app1", AppName: "Acme Payroll", ReplyTo: "help@acme.example.com",
		Channel: "email", To: "ada@example.com", Subject: "Acme Payroll sent you $25.00",
		Body: "Acme Payroll sent you $25.00.\n\nClaim it here:\nhttps://pay.test/l/abc?k=xyz\n",
		HTML: `<p>Acme Payroll sent you <strong>$25.00</strong>.</p><p><a href="https://pay.test/l/abc?k=xyz">Claim $25.00</a></p>`}
	for range 2 { // the second try of a message after a crash
		if err := n.Send(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	got := mp.Messages(t)
	if len(got) != 2 {
		t.Fatalf("mailpit received %d messages, want 2", len(got))
	}
	for _, m := range got {
		if m.From.Name != "Acme Payroll" || m.From.Address != "payouts@pay.example.com" ||
			len(m.To) != 1 || m.To[0].Address != "ada@example.com" ||
			len(m.ReplyTo) != 1 || m.ReplyTo[0].Address != "help@acme.example.com" ||
			m.Subject != msg.Subject || m.MessageID != "msg_7.app1@pay.example.com" ||
			!strings.Contains(m.Text, "https://pay.test/l/abc?k=xyz") || !strings.Contains(m.HTML, `href="https://pay.test/l/abc?k=xyz"`) {
			t.Errorf("received %+v", m)
		}
	}

	tests := []struct {
		name        string
		url, to     string
		undelivered bool
	}{
		{"a recipient the server refuses", mp.SMTPURL, "ada@elsewhere.test", true},
		{"a server that cannot be reached", "smtp://127.0.0.1:1", "ada@example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := smtpmail.New(smtpmail.Config{URL: tt.url, From: "payouts@pay.example.com", TLS: mp.TLS})
			if err != nil {
				t.Fatal(err)
			}
			m := msg
			m.To = tt.to
			err = n.Send(ctx, m)
			if err == nil || errors.Is(err, service.ErrUndeliverable) != tt.undelivered {
				t.Fatalf("Send: %v, want an error undeliverable=%v", err, tt.undelivered)
			}
		})
	}
}

// TestNewRefuses checks the configuration cmd/payoutd reads from the environment.
func TestNewRefuses(t *testing.T) {
	tests := []struct{ name, url, from string }{
		{"no scheme", "mail.example.com:587", "payouts@example.com"},
		{"http", "http://mail.example.com", "payouts@example.com"},
		{"no host", "smtp://", "payouts@example.com"},
		{"a port that is no number", "smtp://mail.example.com:x", "payouts@example.com"},
		{"no From", "smtp://mail.example.com", ""},
		{"a From with a name", "smtp://mail.example.com", "Payouts <payouts@example.com>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := smtpmail.New(smtpmail.Config{URL: tt.url, From: tt.from}); err == nil {
				t.Fatal("New accepted it")
			}
		})
	}
}
