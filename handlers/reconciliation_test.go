package handlers_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	stripeapi "github.com/stripe/stripe-go/v83"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/payouts"
)

// TestReconciliationPage pays four ACH payouts through the Stripe rail and its double, makes
// Stripe's records differ from ours in every way the service reports, and checks that the page
// shows each difference with its amounts as money and the one payout matched, that the export
// holds the same rows, that a bad day or a rail that keeps no records is a problem on the form,
// and that only admins and managers may read it.
func TestReconciliationPage(t *testing.T) {
	t.Parallel()
	setup, double := withStripeACH(t)
	h := newHarnessWith(t, setup)
	ctx := context.Background()
	u := h.createUser("Rhea", "Recon")
	m, err := h.payouts.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
		RoutingNumber: "110000000", AccountNumber: "000123456789", AccountType: payouts.AccountChecking})
	if err != nil {
		t.Fatal(err)
	}
	h.deposit(100_00)
	var ids []string
	for range 4 {
		tr, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: u.ID, Amount: 12_34, Platform: payouts.PlatformACH,
			AccountID: m.ID, Fund: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	paid := double.Payments()
	if len(paid) != 4 {
		t.Fatalf("Stripe has %d payments, want 4", len(paid))
	}
	double.Edit(paid[1].ID, func(p *stripeapi.TreasuryOutboundPayment) { p.Amount++ })
	double.Move(paid[2].ID, stripeapi.TreasuryOutboundPaymentStatusPosted, "")
	double.Drop(paid[3].ID)
	outside := double.Add(5_00, stripeapi.TreasuryOutboundPaymentStatusPosted, h.env.Clock.Now())
	double.Edit(outside, func(p *stripeapi.TreasuryOutboundPayment) { p.Metadata[stripe.MetaApp] = h.env.AppID })

	agents := map[dashstore.Role]*agent{}
	for _, role := range dashstore.Roles {
		agents[role], _ = h.signedIn(role)
	}
	const day = "/reconciliation?platform=ach&day=" + serviceDay
	t.Run("every difference", func(t *testing.T) {
		res := agents[dashstore.RoleManager].get(day)
		wantStatus(t, res, http.StatusOK)
		wantBody(t, res, `data-testid="matched">1<`, `data-testid="differences">4<`,
			`data-kind="amount_differs"`, `data-kind="status_differs"`, `data-kind="ours_only"`, `data-kind="theirs_only"`,
			`href="/transfers/`+ids[1]+`"`, paid[1].ID, "$12.34", "$12.35", "$5.00", outside,
			`href="/reconciliation/export?day=`+serviceDay+`&amp;platform=ach"`)
		if strings.Contains(res.body, ids[0]) {
			t.Errorf("the matched payout %s is listed as a difference", ids[0])
		}
	})
	t.Run("export", func(t *testing.T) {
		res := agents[dashstore.RoleManager].get("/reconciliation/export?platform=ach&day=" + serviceDay)
		wantStatus(t, res, http.StatusOK)
		rows := readCSV(t, res.body)
		want := [][]string{
			{"difference", "transfer_id", "external_id", "our_amount", "their_amount", "our_status", "their_status", "time_zone"},
			{"amount_differs", ids[1], paid[1].ID, "12.34", "12.35", "pending", "pending", "UTC"},
			{"ours_only", ids[3], paid[3].ID, "12.34", "", "pending", "", "UTC"},
			{"status_differs", ids[2], paid[2].ID, "12.34", "12.34", "pending", "completed", "UTC"},
			{"theirs_only", "", outside, "", "5.00", "", "completed", "UTC"},
		}
		if !slices.EqualFunc(rows, want, slices.Equal[[]string]) {
			t.Errorf("export rows\n%q\nwant\n%q", rows, want)
		}
		if got := h.auditActions("reconciliation", ""); len(got) != 1 || got[0].Action != "reconciliation.export" {
			t.Errorf("audit log %+v, want one reconciliation.export", got)
		}
	})
	t.Run("default: yesterday, the first rail that keeps records", func(t *testing.T) {
		res := agents[dashstore.RoleAdmin].get("/reconciliation")
		wantStatus(t, res, http.StatusOK)
		wantBody(t, res, `value="2026-03-01"`, `<option value="ach" selected`, "Stripe Treasury", `data-testid="differences">0<`)
	})
	for _, tc := range []struct{ name, url, want string }{
		{"a day that is not one", "/reconciliation?platform=ach&day=yesterday", "must be a date like 2026-11-24"},
		{"a rail that keeps no records", "/reconciliation?platform=paypal&day=" + serviceDay, "PayPal is served by the sandbox rail, which keeps no provider records to reconcile against."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := agents[dashstore.RoleAdmin].get(tc.url)
			wantStatus(t, res, http.StatusUnprocessableEntity)
			wantBody(t, res, tc.want)
			if strings.Contains(res.body, `data-testid="matched"`) {
				t.Error("a request with a problem shows a result")
			}
		})
	}
	t.Run("roles", func(t *testing.T) {
		for _, tc := range []struct {
			role   dashstore.Role
			status int
		}{
			{dashstore.RoleAdmin, http.StatusOK}, {dashstore.RoleManager, http.StatusOK},
			{dashstore.RoleOperations, http.StatusForbidden}, {dashstore.RoleSupport, http.StatusForbidden},
		} {
			for _, path := range []string{day, "/reconciliation/export?platform=ach&day=" + serviceDay} {
				if res := agents[tc.role].get(path); res.StatusCode != tc.status {
					t.Errorf("GET %s as %s: status %d, want %d", path, tc.role, res.StatusCode, tc.status)
				}
			}
			if linked := strings.Contains(agents[tc.role].get("/users").body, `href="/reconciliation"`); linked != (tc.status == http.StatusOK) {
				t.Errorf("%s's navigation links the reconciliation: %v", tc.role, linked)
			}
		}
	})
}

// TestReconciliationUnavailable: on the public API the page and its export say in one line that
// reconciliation is not offered there; on our service with every platform on the sandbox, that
// there is no provider's record to reconcile against.
func TestReconciliationUnavailable(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			a, _ := h.signedIn(dashstore.RoleManager)
			want := "Every platform pays out on the sandbox"
			if b.public {
				want = "Reconciliation with the payouts provider: not available on this API"
			}
			for _, path := range []string{"/reconciliation", "/reconciliation/export"} {
				res := a.get(path)
				wantStatus(t, res, http.StatusOK)
				wantBody(t, res, "<h1", want)
				if strings.Contains(res.body, `data-testid="matched"`) {
					t.Errorf("GET %s shows a result", path)
				}
			}
		})
	}
}
