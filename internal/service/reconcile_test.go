package service_test

import (
	"errors"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"

	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestReconcile pays four ACH payouts through the Stripe rail and its double, makes Stripe's
// records differ from ours in each way, and checks that the app's reconciliation lists each
// difference once and the operator's (every app) also the payment made outside disburse.
func TestReconcile(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		rails := sandbox.Rails(nil, 0, 0)
		e := newEnvOn(t, dsn, rails, deposit)
		double := stripetest.New(t, "", e.clock.Now)
		double.PostAfter = settleDelay
		rail, err := stripe.New(stripe.Config{APIKey: "sk_test_123", FinancialAccount: "fa_123", WebhookSecret: whsec, URL: double.URL,
			Poll: settleDelay, Clock: e.clock})
		if err != nil {
			t.Fatal(err)
		}
		rails[payouts.PlatformACH] = rail // the service holds this map; nothing has been paid yet
		m := e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
			RoutingNumber: "110000000", AccountNumber: "000123456789", AccountType: payouts.AccountChecking})
		var ids []string
		for range 4 {
			tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: payoutAmount,
				Platform: payouts.PlatformACH, AccountID: m.ID, Fund: true})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tr.ID)
		}
		e.clock.Advance(2 * settleDelay)
		if _, err := e.svc.SettleDue(e.ctx, 100); err != nil {
			t.Fatal(err)
		}
		paid := double.Payments()
		double.Edit(paid[1].ID, func(p *stripeapi.TreasuryOutboundPayment) { p.Amount++ })
		double.Move(paid[2].ID, stripeapi.TreasuryOutboundPaymentStatusReturned, stripeapi.TreasuryOutboundPaymentReturnedDetailsCodeNoAccount)
		double.Drop(paid[3].ID)
		outside := double.Add(500, stripeapi.TreasuryOutboundPaymentStatusPosted, e.clock.Now())
		// A payout of another day is not the day's, on either side.
		e.clock.Advance(24 * time.Hour)
		double.Add(700, stripeapi.TreasuryOutboundPaymentStatusPosted, e.clock.Now())

		req := payouts.ReconcileRequest{Platform: payouts.PlatformACH, Day: "2026-03-02"}
		want := []payouts.ReconciliationDifference{
			{Kind: payouts.DiffAmountDiffers, TransferID: ids[1], ExternalID: paid[1].ID, OurAmount: payoutAmount,
				TheirAmount: payoutAmount + 1, OurStatus: payouts.TransferCompleted, TheirStatus: payouts.TransferCompleted},
			{Kind: payouts.DiffOursOnly, TransferID: ids[3], ExternalID: paid[3].ID, OurAmount: payoutAmount,
				OurStatus: payouts.TransferCompleted},
			{Kind: payouts.DiffStatusDiffers, TransferID: ids[2], ExternalID: paid[2].ID, OurAmount: payoutAmount,
				TheirAmount: payoutAmount, OurStatus: payouts.TransferCompleted, TheirStatus: payouts.TransferFailed},
		}
		for _, tt := range []struct {
			name  string
			appID string
			want  []payouts.ReconciliationDifference
		}{
			{"the app's", e.app, want},
			{"every app's", "", append(want, payouts.ReconciliationDifference{Kind: payouts.DiffTheirsOnly, ExternalID: outside,
				TheirAmount: 500, TheirStatus: payouts.TransferCompleted})},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got, err := e.svc.Reconcile(e.ctx, tt.appID, req)
				if err != nil {
					t.Fatal(err)
				}
				if got.Matched != 1 || len(got.Differences) != len(tt.want) {
					t.Fatalf("matched %d, differences %+v; want 1 matched and %+v", got.Matched, got.Differences, tt.want)
				}
				for i := range tt.want {
					if got.Differences[i] != tt.want[i] {
						t.Errorf("difference %d = %+v, want %+v", i, got.Differences[i], tt.want[i])
					}
				}
			})
		}

		t.Run("a rail that cannot list", func(t *testing.T) {
			_, err := e.svc.Reconcile(e.ctx, e.app, payouts.ReconcileRequest{Platform: payouts.PlatformCashApp, Day: "2026-03-02"})
			var pe *payouts.Error
			if !errors.As(err, &pe) || pe.Code != payouts.EInvalidInput {
				t.Fatalf("Reconcile on the sandbox's Cash App = %v, want invalid-input", err)
			}
			if want := "Cash App is served by the sandbox rail, which keeps no provider records to reconcile against."; pe.Message != want {
				t.Errorf("refusal %q, want %q", pe.Message, want)
			}
		})
	})
}
