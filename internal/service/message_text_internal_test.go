package service

import (
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestMessageTexts checks what each message says: who pays, how much, until when and the link
// for a payout link, by email (text and HTML) and by sms; what a code is for. The app's words
// and name are escaped in HTML.
func TestMessageTexts(t *testing.T) {
	link := func(method payouts.DeliveryMethod, note, first string) *PayoutLinkRecord {
		return &PayoutLinkRecord{AppID: "app1", PayoutLink: payouts.PayoutLink{Amount: 1234_56,
			Payee:    payouts.Payee{FirstName: first, Email: "ada@example.com", CountryCode: "44", PhoneNumber: "7700900123"},
			Delivery: payouts.Delivery{Method: method, Message: note}}}
	}
	const url = "https://pay.example.com/l/abc?k=x&y"
	tests := []struct {
		name                 string
		msg                  Message
		to, subject, country string
		text, html           []string // each must appear
		notText              []string
	}{
		{"an email link with a note", linkMessage(link(payouts.DeliveryEmail, "Thanks for March", "Ada"), "Acme <Payroll>", url),
			"ada@example.com", "Acme <Payroll> sent you $1,234.56", "",
			[]string{"Hi Ada,", "Acme <Payroll> sent you $1,234.56.", "Acme <Payroll> says: Thanks for March", url,
				"until you claim the money or Acme <Payroll> cancels the payment"},
			[]string{"Acme &lt;Payroll&gt;", `href="https://pay.example.com/l/abc?k=x&amp;y"`, "Claim $1,234.56", "Thanks for March"}, nil},
		{"an email link without a note or a name", linkMessage(link(payouts.DeliveryEmail, "", ""), "Acme", url),
			"ada@example.com", "Acme sent you $1,234.56", "",
			[]string{"Hi,", "Acme sent you $1,234.56.", url}, []string{"Claim $1,234.56"}, []string{"says:"}},
		{"an sms link", linkMessage(link(payouts.DeliverySMS, "Thanks", "Ada"), "Acme", url),
			"+44 7700900123", "", "44",
			[]string{`Acme sent you $1,234.56. "Thanks" Claim it here until you claim it or Acme cancels it: ` + url}, nil, []string{"\n"}},
		{"a code for a phone", codeMessage("app1", "Acme", contact{channel: "sms", to: "+1 5555550101", country: "1"}, "123456", codeForPhone),
			"+1 5555550101", "Your Acme verification code", "1",
			[]string{"Your verification code is 123456.", "Use it to confirm your phone number with Acme.", "expires in 10 minutes"}, nil, nil},
		{"a code for a claim", codeMessage("app1", "Acme", contact{channel: "email", to: "ada@example.com"}, "654321", codeForClaim),
			"ada@example.com", "Your Acme verification code", "",
			[]string{"Your verification code is 654321.", "Use it to prove it is you and collect your payout with Acme."}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.msg
			if m.To != tt.to || m.Subject != tt.subject || m.Country != tt.country || m.AppID != "app1" {
				t.Errorf("to %q, subject %q, country %q, app %q", m.To, m.Subject, m.Country, m.AppID)
			}
			for _, want := range tt.text {
				if !strings.Contains(m.Body, want) {
					t.Errorf("the text lacks %q:\n%s", want, m.Body)
				}
			}
			for _, not := range tt.notText {
				if strings.Contains(m.Body, not) {
					t.Errorf("the text has %q:\n%s", not, m.Body)
				}
			}
			for _, want := range tt.html {
				if !strings.Contains(m.HTML, want) {
					t.Errorf("the HTML lacks %q:\n%s", want, m.HTML)
				}
			}
			if tt.html == nil && m.HTML != "" {
				t.Errorf("an HTML part: %s", m.HTML)
			}
		})
	}
}
