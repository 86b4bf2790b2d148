package components

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestPhone: a number shows in its country's national format with the country's code, and one
// stored before numbers were parsed that is not valid says it needs review.
func TestPhone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phone payouts.Phone
		want  string
	}{
		{"US", payouts.Phone{CountryCode: "1", PhoneNumber: "4155132552"}, "(415) 513-2552 (US)"},
		{"UK", payouts.Phone{CountryCode: "44", PhoneNumber: "2079460958"}, "020 7946 0958 (GB)"},
		{"India", payouts.Phone{CountryCode: "91", PhoneNumber: "9851234567"}, "098512 34567 (IN)"},
		{"Mexico", payouts.Phone{CountryCode: "52", PhoneNumber: "5512345678"}, "55 1234 5678 (MX)"},
		{"not valid: needs review", payouts.Phone{CountryCode: "1", PhoneNumber: "5550100"}, "+1 5550100 (needs review)"},
		{"unreadable stays as kept", payouts.Phone{CountryCode: "999", PhoneNumber: "12"}, "+999 12 (needs review)"},
		{"none", payouts.Phone{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Phone(tc.phone); got != tc.want {
				t.Errorf("Phone(%+v) = %q, want %q", tc.phone, got, tc.want)
			}
		})
	}
}

// TestVenmoPhone: a Venmo method's number, stored in E.164, shows nationally; one stored as
// digits before numbers kept their country needs review.
func TestVenmoPhone(t *testing.T) {
	for stored, want := range map[string]string{
		"+14082341234": "(408) 234-1234 (US)",
		"2079460958":   "2079460958 (needs review)",
	} {
		if got := VenmoPhone(stored); got != want {
			t.Errorf("VenmoPhone(%q) = %q, want %q", stored, got, want)
		}
	}
}
