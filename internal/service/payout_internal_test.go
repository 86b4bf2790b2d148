package service

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestPickMethodKeepsToTheUser: among the methods of several users, newest first (as a worker's
// claim reads them), a payout gets its own user's method, by platform, by default or by id, and a
// method of another user is refused like one that does not exist.
func TestPickMethodKeepsToTheUser(t *testing.T) {
	method := func(id, user string, platform payouts.Platform, isDefault bool) PayoutMethodRecord {
		return PayoutMethodRecord{UserID: user, PayoutMethod: payouts.PayoutMethod{ID: id, Platform: platform, Default: isDefault}}
	}
	methods := []PayoutMethodRecord{ // newest first
		method("bob-venmo", "bob", payouts.PlatformVenmo, true),
		method("bob-paypal", "bob", payouts.PlatformPayPal, false),
		method("ada-venmo", "ada", payouts.PlatformVenmo, false),
		method("ada-paypal", "ada", payouts.PlatformPayPal, true),
	}
	tests := []struct {
		name      string
		platform  payouts.Platform
		accountID string
		want      string // "" for a refusal
	}{
		{"the newest of the platform", payouts.PlatformPayPal, "", "ada-paypal"},
		{"the default", payouts.PlatformDefault, "", "ada-paypal"},
		{"by id", payouts.PlatformVenmo, "ada-venmo", "ada-venmo"},
		{"another user's by id", payouts.PlatformVenmo, "bob-venmo", ""},
		{"a platform she has not", payouts.PlatformCashApp, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := pickMethod(methods, "ada", tt.platform, tt.accountID)
			switch {
			case tt.want == "" && err == nil:
				t.Fatalf("picked %s, want a refusal", m.ID)
			case tt.want != "" && (err != nil || m.ID != tt.want):
				t.Fatalf("picked %v, %v; want %s", m, err, tt.want)
			}
		})
	}
}
