package service_test

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestMessageLimits sends payout links until a limit against abuse refuses one, on both engines:
// per recipient, per app, per destination country (texts only), and a country not configured.
// A refused link is a 4xx naming the limit, and nothing of it is written: no link, no money
// reserved, no message.
func TestMessageLimits(t *testing.T) {
	one := service.Rate{Max: 2, Per: time.Hour}
	tests := []struct {
		name      string
		limits    service.Limits
		payees    []payouts.Payee // one link each, in order; the last is refused
		method    payouts.DeliveryMethod
		code      string
		field     string
		countries []string
	}{
		{"per recipient", service.Limits{MessagesPerRecipient: one}, []payouts.Payee{
			{Email: "ada@example.com"}, {Email: "ada@example.com"}, {Email: "ada@example.com"}}, payouts.DeliveryEmail, payouts.ETooManyRequests, "", nil},
		{"per app", service.Limits{MessagesPerApp: one}, []payouts.Payee{
			{Email: "a@example.com"}, {Email: "b@example.com"}, {Email: "c@example.com"}}, payouts.DeliveryEmail, payouts.ETooManyRequests, "", nil},
		{"per destination country", service.Limits{TextsPerCountry: one}, []payouts.Payee{
			{CountryCode: "44", PhoneNumber: "7911123451"}, {CountryCode: "44", PhoneNumber: "7911123452"},
			{CountryCode: "1", PhoneNumber: "4155550103"}, {CountryCode: "44", PhoneNumber: "7911123454"}}, payouts.DeliverySMS, payouts.ETooManyRequests, "", nil},
		{"a country not configured", service.Limits{}, []payouts.Payee{
			{CountryCode: "1", PhoneNumber: "4155550101"}, {CountryCode: "91", PhoneNumber: "9851234567"}}, payouts.DeliverySMS,
			payouts.EInvalidInput, "payee.phone_number", []string{"1", "44"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, dsn string) {
				e := newEnvOn(t, dsn, nil, deposit)
				e.cfg.Limits, e.cfg.SMSCountries = tt.limits, tt.countries
				e.open(t)
				for i, p := range tt.payees {
					p.FirstName = "Ada"
					_, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 10_00, Payee: &p,
						Delivery: &payouts.Delivery{Method: tt.method}})
					if i < len(tt.payees)-1 {
						if err != nil {
							t.Fatalf("link %d: %v", i, err)
						}
						continue
					}
					var perr *payouts.Error
					if !errors.As(err, &perr) || perr.Code != tt.code || (tt.field != "" && perr.Fields[tt.field] == "") {
						t.Fatalf("the last link: %v, want %s on %q", err, tt.code, tt.field)
					}
				}
				links, err := e.svc.ListPayoutLinks(e.ctx, e.app, payouts.Page{Limit: 100}, payouts.PayoutLinkFilter{})
				if err != nil || len(links.Data) != len(tt.payees)-1 {
					t.Fatalf("%d links written (%v), want %d", len(links.Data), err, len(tt.payees)-1)
				}
				if n, err := e.svc.DeliverDue(e.ctx, 100); err != nil || n != len(tt.payees)-1 {
					t.Fatalf("%d messages queued (%v), want %d", n, err, len(tt.payees)-1)
				}
			})
		})
	}
}
