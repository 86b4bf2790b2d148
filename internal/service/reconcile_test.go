package service_test

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"

	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
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

// TestReconcilePayPal pays four PayPal payouts and a Venmo one through the PayPal rail and its
// double, makes PayPal's Transaction Search differ from ours in each way, and checks each
// platform's reconciliation: Transaction Search names a payout by its transaction id alone, which
// the payout's outcome kept, and one account lists PayPal's and Venmo's payments alike, so the
// Venmo payout is matched under Venmo and is not PayPal's "theirs only". A payment made outside
// disburse cannot be told apart and is the operator's under both.
func TestReconcilePayPal(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		rails := sandbox.Rails(nil, 0, 0)
		e := newEnvOn(t, dsn, rails, deposit)
		double := paypaltest.New(t)
		double.Now = e.clock.Now
		defer double.Check(t)
		client, err := paypal.New(paypal.Config{BaseURL: double.URL, ClientID: paypaltest.ClientID,
			ClientSecret: paypaltest.ClientSecret, HTTP: double.Client(), Clock: e.clock})
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(rails, client.Rails()) // the service holds this map; nothing has been paid yet
		pay := func(req payouts.AddPayoutMethodRequest) string {
			m := e.addMethod(t, e.user.ID, req)
			tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: payoutAmount,
				Platform: req.Platform, AccountID: m.ID, Fund: true})
			if err != nil {
				t.Fatal(err)
			}
			return tr.ID
		}
		var ids []string
		for range 4 {
			ids = append(ids, pay(payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"}))
		}
		venmo := pay(payouts.AddPayoutMethodRequest{Platform: payouts.PlatformVenmo, PhoneNumber: "4155552671"})
		e.clock.Advance(2 * time.Minute)
		if _, err := e.svc.SettleDue(e.ctx, 100); err != nil {
			t.Fatal(err)
		}
		batch := func(id string) string {
			tr, err := e.svc.GetTransfer(e.ctx, e.app, id)
			if err != nil || tr.Status != payouts.TransferCompleted {
				t.Fatalf("payout %s: %+v, %v; want it completed", id, tr, err)
			}
			return tr.ExternalData.ExternalID
		}
		txn := func(id string) *paypaltest.Transaction {
			batch(id)
			return double.TransactionOf(id)
		}
		changed, refused, dropped := txn(ids[1]), txn(ids[2]), txn(ids[3])
		double.Edit(changed, func(x *paypaltest.Transaction) { x.Value = "-100.01" })
		double.Edit(refused, func(x *paypaltest.Transaction) { x.Status = "D" })
		double.Edit(dropped, func(x *paypaltest.Transaction) { x.Gone = true })
		outside := double.AddPayment("-5.00", "S", e.clock.Now())
		theirsOnly := payouts.ReconciliationDifference{Kind: payouts.DiffTheirsOnly, ExternalID: outside.ID, TheirAmount: 500,
			TheirStatus: payouts.TransferCompleted}
		paypalDiffs := []payouts.ReconciliationDifference{
			{Kind: payouts.DiffAmountDiffers, TransferID: ids[1], ExternalID: changed.ID, OurAmount: payoutAmount,
				TheirAmount: payoutAmount + 1, OurStatus: payouts.TransferCompleted, TheirStatus: payouts.TransferCompleted},
			{Kind: payouts.DiffOursOnly, TransferID: ids[3], ExternalID: batch(ids[3]), OurAmount: payoutAmount,
				OurStatus: payouts.TransferCompleted},
			{Kind: payouts.DiffStatusDiffers, TransferID: ids[2], ExternalID: refused.ID, OurAmount: payoutAmount,
				TheirAmount: payoutAmount, OurStatus: payouts.TransferCompleted, TheirStatus: payouts.TransferFailed},
		}
		batch(venmo)
		for _, tt := range []struct {
			name     string
			platform payouts.Platform
			appID    string
			want     []payouts.ReconciliationDifference
		}{
			{"PayPal, the app's", payouts.PlatformPayPal, e.app, paypalDiffs},
			{"PayPal, every app's", payouts.PlatformPayPal, "", append(slices.Clone(paypalDiffs), theirsOnly)},
			{"Venmo, the app's", payouts.PlatformVenmo, e.app, nil},
			{"Venmo, every app's", payouts.PlatformVenmo, "", []payouts.ReconciliationDifference{theirsOnly}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got, err := e.svc.Reconcile(e.ctx, tt.appID, payouts.ReconcileRequest{Platform: tt.platform, Day: "2026-03-02"})
				if err != nil {
					t.Fatal(err)
				}
				if got.Matched != 1 || !slices.Equal(got.Differences, tt.want) {
					t.Errorf("matched %d, differences %+v; want 1 matched and %+v", got.Matched, got.Differences, tt.want)
				}
			})
		}
	})
}
