package sandbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

func TestRailTriggers(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	rails := sandbox.Rails(fixedClock{now}, time.Second, time.Minute)
	tests := []struct {
		name       string
		method     service.PayoutMethodRecord
		rejected   bool
		failsLater bool
		settleIn   time.Duration
	}{
		{"plain paypal settles", service.PayoutMethodRecord{PayoutMethod: payouts.PayoutMethod{Platform: payouts.PlatformPayPal, Email: "ada@example.com"}}, false, false, time.Second},
		{"fail email is rejected", service.PayoutMethodRecord{PayoutMethod: payouts.PayoutMethod{Platform: payouts.PlatformPayPal, Email: "FAIL@example.com"}}, true, false, 0},
		{"slowfail handle fails later", service.PayoutMethodRecord{PayoutMethod: payouts.PayoutMethod{Platform: payouts.PlatformVenmo, Handle: "slowfail-ada"}}, false, true, time.Second},
		{"account 0000 is rejected", service.PayoutMethodRecord{PayoutMethod: payouts.PayoutMethod{Platform: payouts.PlatformACH, Mask: "0000"}}, true, false, 0},
		{"account 9999 fails later", service.PayoutMethodRecord{PayoutMethod: payouts.PayoutMethod{Platform: payouts.PlatformACH, Mask: "9999"}}, false, true, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := service.RailPayout{TransferID: "0d9c8b7a-6f5e-4d3c-2b1a-000000000001", Amount: 500, Method: tt.method}
			rail := rails[tt.method.Platform]
			receipt, err := rail.Submit(context.Background(), p.TransferID, p)
			var rejection *service.RailRejection
			if got := errors.As(err, &rejection); got != tt.rejected {
				t.Fatalf("rejected = %v (err %v), want %v", got, err, tt.rejected)
			}
			if tt.rejected {
				return
			}
			if got := receipt.SettleAt.Sub(now); got != tt.settleIn {
				t.Errorf("settles in %v, want %v", got, tt.settleIn)
			}
			out, err := rail.Outcome(context.Background(), p, receipt.ExternalID)
			if err != nil {
				t.Fatal(err)
			}
			if out.Failed != tt.failsLater || out.Settled == tt.failsLater {
				t.Errorf("outcome %+v, want failed=%v", out, tt.failsLater)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		run  func() bool
	}{
		{"$13.13 is held", false, func() bool { return !sandbox.Screener{}.HoldForReview(service.RailPayout{Amount: 1313}) }},
		{"$13.14 passes", true, func() bool { return !sandbox.Screener{}.HoldForReview(service.RailPayout{Amount: 1314}) }},
		{"SSN 0000 fails", false, func() bool { return sandbox.IdentityVerifier{}.VerifyIdentity(context.Background(), "0000", "") == nil }},
		{"SSN 1234 passes", true, func() bool { return sandbox.IdentityVerifier{}.VerifyIdentity(context.Background(), "1234", "") == nil }},
		{"bounce email is refused", false, func() bool {
			return sandbox.Inbox{}.Send(context.Background(), service.Message{To: "Bounce@example.com"}) == nil
		}},
		{"phone 0000 is refused", false, func() bool {
			return sandbox.Inbox{}.Send(context.Background(), service.Message{To: "+1 4155550000"}) == nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.run(); got != tt.ok {
				t.Errorf("passed = %v, want %v", got, tt.ok)
			}
		})
	}
}
