package stripe_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"
	"github.com/stripe/stripe-go/v83/webhook"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// event is a Stripe event of type typ carrying the recorded OutboundPayment of file, signed as
// Stripe signs it at signedAt with secret.
func event(t *testing.T, typ, file, secret string, signedAt time.Time) (http.Header, []byte) {
	t.Helper()
	obj, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Appendf(nil, `{"id":"evt_1","object":"event","api_version":%q,"created":%d,"livemode":false,"pending_webhooks":1,"type":%q,"data":{"object":%s}}`,
		stripeapi.APIVersion, signedAt.Unix(), typ, obj)
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: signedAt})
	return http.Header{"Stripe-Signature": {signed.Header}}, signed.Payload
}

// TestNotification verifies events with stripe-go's check: a returned payment reports the money
// back for the payout its metadata names; a wrong secret, a changed body and an event replayed
// past Stripe's five-minute tolerance are refused as unverified; other events report nothing.
func TestNotification(t *testing.T) {
	rail := newRail(t, "http://127.0.0.1:1", nil)
	now := time.Now()
	tampered := func(h http.Header, b []byte) (http.Header, []byte) {
		return h, append(b[:len(b)-1:len(b)-1], ' ', '}')
	}
	same := func(h http.Header, b []byte) (http.Header, []byte) { return h, b }
	for _, tt := range []struct {
		name       string
		typ, file  string
		secret     string
		at         time.Time
		change     func(http.Header, []byte) (http.Header, []byte)
		unverified bool
		want       []service.RailNotice
	}{
		{"returned", "treasury.outbound_payment.returned", "outbound_payment_returned.json", whsec, now, same, false,
			[]service.RailNotice{{Platform: payouts.PlatformACH, Report: service.RailReport{TransferID: transferID,
				ExternalID: "obp_1Pgc7BB7WZ01zgkWxD3fB2p", Outcome: service.RailOutcome{Returned: true,
					Reason: "the receiving bank returned the ACH payment: no such account (R03)"}}}}},
		{"posted", "treasury.outbound_payment.posted", "outbound_payment_posted.json", whsec, now, same, false,
			[]service.RailNotice{{Platform: payouts.PlatformACH, Report: service.RailReport{TransferID: transferID,
				ExternalID: "obp_1Pgc7BB7WZ01zgkWxD3fB2p", Outcome: service.RailOutcome{Settled: true}}}}},
		{"another event", "treasury.outbound_payment.created", "outbound_payment_processing.json", whsec, now, same, false, nil},
		{"wrong secret", "treasury.outbound_payment.returned", "outbound_payment_returned.json", "whsec_other", now, same, true, nil},
		{"changed body", "treasury.outbound_payment.returned", "outbound_payment_returned.json", whsec, now, tampered, true, nil},
		{"replayed later", "treasury.outbound_payment.returned", "outbound_payment_returned.json", whsec, now.Add(-time.Hour), same, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			header, body := tt.change(event(t, tt.typ, tt.file, tt.secret, tt.at))
			got, err := rail.Notification(context.Background(), header, body, nil)
			var unverified *service.RailUnverified
			if errors.As(err, &unverified) != tt.unverified || (err != nil && !tt.unverified) {
				t.Fatalf("Notification error %v, want unverified %v", err, tt.unverified)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Notification = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].Platform != tt.want[i].Platform || got[i].Report.TransferID != tt.want[i].Report.TransferID ||
					got[i].Report.ExternalID != tt.want[i].Report.ExternalID || got[i].Report.Outcome != tt.want[i].Report.Outcome {
					t.Errorf("notice %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
