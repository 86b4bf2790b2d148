package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"

	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
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
