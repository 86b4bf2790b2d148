package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/paypal/paypaltest"
	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// TestReconcileCommand reconciles ACH through the Stripe rail configured as payoutd serves it
// (--rails ach=stripe, credentials from the environment) against the Stripe double: a day whose
// only payment is one disburse never made exits with an error naming it; a day with nothing
// exits 0.
func TestReconcileCommand(t *testing.T) {
	double := stripetest.New(t, "", time.Now)
	outside := double.Add(500, stripeapi.TreasuryOutboundPaymentStatusPosted, time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	env := map[string]string{"STRIPE_API_KEY": "sk_test_123", "STRIPE_FINANCIAL_ACCOUNT": "fa_123",
		"STRIPE_WEBHOOK_SECRET": "whsec_test", "STRIPE_API_BASE": double.URL}
	getenv := func(k string) string { return env[k] }
	db := filepath.Join(t.TempDir(), "test.db")
	for _, tt := range []struct {
		day     string
		wantErr bool
		want    string
	}{
		{"2026-11-24", true, "theirs_only"},
		{"2026-11-23", false, "ok: 0 payouts on ach matched on 2026-11-23"},
	} {
		t.Run(tt.day, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), []string{"reconcile", "--db", db, "--encryption-key", testKey,
				"--rails", "ach=stripe", "--platform", "ach", "--date", tt.day}, getenv, &out)
			if errors.Is(err, errDifferences) != tt.wantErr || (!tt.wantErr && err != nil) {
				t.Fatalf("reconcile %s: %v, want differences %v\n%s", tt.day, err, tt.wantErr, out.String())
			}
			if !strings.Contains(out.String(), tt.want) || (tt.wantErr && !strings.Contains(out.String(), outside)) {
				t.Errorf("reconcile %s printed %q, want %q", tt.day, out.String(), tt.want)
			}
		})
	}
}

// TestReconcileCommandPayPal reconciles a day of PayPal payouts made through the rail as payoutd
// serves it (--rails paypal=paypal, credentials from the environment) against the PayPal double:
// one paid, one FAILED and one BLOCKED (no money moved, so Transaction Search lists neither), one
// RETURNED (listed, reversed) and one REFUNDED. Nothing differs, so the command exits 0; on both
// engines.
func TestReconcileCommandPayPal(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, db string) {
		ctx := context.Background()
		double := paypaltest.New(t)
		clock := testclock.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
		double.Now = clock.Now
		defer double.Check(t)
		env := map[string]string{"PAYPAL_CLIENT_ID": paypaltest.ClientID, "PAYPAL_CLIENT_SECRET": paypaltest.ClientSecret,
			"PAYPAL_API_BASE": double.URL}
		getenv := func(k string) string { return env[k] }
		// The payouts are made on the test's clock, so their rail's polls are too.
		client, err := paypal.New(paypal.Config{BaseURL: double.URL, ClientID: paypaltest.ClientID,
			ClientSecret: paypaltest.ClientSecret, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		provider := payoutd.RailProvider{Name: "paypal", Rails: client.Rails(), Webhook: client}
		key, _ := payoutd.ParseKey(testKey)
		srv, err := payoutd.New(ctx, payoutd.Config{DB: db, EncryptionKey: key, Providers: []payoutd.RailProvider{provider},
			WorkerInterval: -1, Clock: clock}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		creds, err := srv.CreateApp(ctx, "Reconciled")
		if err != nil {
			t.Fatal(err)
		}
		svc := srv.Service()
		if _, err := svc.Deposit(ctx, creds.AppID, creds.AppID, payouts.DepositRequest{Amount: 1000_00}); err != nil {
			t.Fatal(err)
		}
		u, err := svc.CreateUser(ctx, creds.AppID, payouts.CreateUserRequest{FirstName: "Cy", LastName: "Check",
			Email: "cy@example.com", CountryCode: "1", PhoneNumber: "4155552671"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.AddPayoutMethod(ctx, creds.AppID, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
			Email: "cy@example.com"}); err != nil {
			t.Fatal(err)
		}
		statuses := []string{"SUCCESS", "FAILED", "BLOCKED", "RETURNED", "REFUNDED"}
		for _, status := range statuses {
			tr, err := svc.CreatePayout(ctx, creds.AppID, payouts.CreatePayoutRequest{UserID: u.ID, Amount: 10_00,
				Platform: payouts.PlatformPayPal, Fund: true, TaxExempt: true})
			if err != nil || tr.ExternalData.ExternalID == "" {
				t.Fatalf("CreatePayout = %+v, %v; want it at PayPal", tr, err)
			}
			double.SetItemStatusOf(tr.ID, status)
		}
		clock.Advance(2 * time.Minute)
		if _, err := svc.SettleDue(ctx, 100); err != nil {
			t.Fatal(err)
		}
		srv.Close()

		var out bytes.Buffer
		err = run(ctx, []string{"reconcile", "--db", db, "--encryption-key", testKey, "--rails", "paypal=paypal",
			"--platform", "paypal", "--date", "2026-11-24"}, getenv, &out)
		if err != nil || !strings.Contains(out.String(), "ok: 5 payouts on paypal matched on 2026-11-24") {
			t.Fatalf("reconcile: %v, printed\n%s\nwant exit 0 with the five payouts matched", err, out.String())
		}
	})
}

// TestStripeLogFormat: with --log-format json, what stripe-go logs of a request Stripe failed
// comes out on payoutd's output as JSON, like every other line.
func TestStripeLogFormat(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"type":"api_error","message":"Something went wrong on Stripe's end."}}`))
	}))
	t.Cleanup(failing.Close)
	var out bytes.Buffer
	cfg, err := parseConfig([]string{"--log-format", "json", "--rails", "ach=stripe"}, env(map[string]string{
		"STRIPE_API_KEY": "sk_test_123", "STRIPE_FINANCIAL_ACCOUNT": "fa_123", "STRIPE_WEBHOOK_SECRET": "whsec_test",
		"STRIPE_API_BASE": failing.URL}), &out)
	if err != nil {
		t.Fatal(err)
	}
	rail := cfg.service.Providers[0].Rails[payouts.PlatformACH]
	_, err = rail.Submit(context.Background(), "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b", service.RailPayout{
		TransferID: "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b", Amount: 100, Created: time.Now(), AccountNumber: "000123456789",
		Method: service.PayoutMethodRecord{RoutingNumber: "110000000", PayoutMethod: payouts.PayoutMethod{Platform: payouts.PlatformACH}}})
	if err == nil {
		t.Fatal("Submit against a failing Stripe succeeded")
	}
	if out.Len() == 0 {
		t.Fatal("stripe-go logged nothing on payoutd's output")
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("log line %q is not JSON", line)
		}
	}
}
