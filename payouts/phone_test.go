package payouts

import (
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/phonecases"
)

func TestParsePhone(t *testing.T) {
	for _, tc := range phonecases.All {
		t.Run(tc.Name, func(t *testing.T) {
			phone, err := ParsePhone(tc.CC, tc.Number)
			if tc.E164 == "" {
				p := Problems{}
				p.Phone("", tc.CC, tc.Number, true)
				if err == nil || p[tc.ProblemField] == "" || len(p) != 1 {
					t.Fatalf("ParsePhone(%q, %q) = %+v, %v; want refused on %s, got problems %v", tc.CC, tc.Number, phone, err,
						tc.ProblemField, p)
				}
				return
			}
			if err != nil || phone.E164() != tc.E164 || phone.National() != tc.National || !phone.Valid() {
				t.Fatalf("ParsePhone(%q, %q) = %+v (%s, %s), %v; want %s, %s", tc.CC, tc.Number, phone, phone.E164(),
					phone.National(), err, tc.E164, tc.National)
			}
			if again, err := ParsePhone(phone.CountryCode, phone.PhoneNumber); err != nil || again != phone {
				t.Errorf("the stored split %+v reads back as %+v, %v", phone, again, err)
			}
		})
	}
}

// TestParseVenmoPhone: Venmo takes only US mobile numbers (a US number's digits do not tell a
// mobile from a landline, so any valid US number), stored as E.164.
func TestParseVenmoPhone(t *testing.T) {
	for _, tc := range []struct {
		number, want string // want "" when refused
	}{
		{"(408) 234-1234", "+14082341234"}, {"+1 415 555 2671", "+14155552671"}, {"4155552671", "+14155552671"},
		{"+44 20 7946 0958", ""}, {"+91 98512 34567", ""}, {"+1 514 555 0123", ""}, {"1234", ""}, {"2079460958x", ""},
	} {
		t.Run(tc.number, func(t *testing.T) {
			r := AddPayoutMethodRequest{Platform: PlatformVenmo, PhoneNumber: tc.number}
			err := r.Validate()
			if got := r.Normalize().PhoneNumber; tc.want != "" && (err != nil || got != tc.want) {
				t.Fatalf("venmo %q: stored %q, %v; want %q", tc.number, got, err, tc.want)
			}
			if tc.want == "" && (err == nil || !strings.Contains(err.Error(), "phone_number")) {
				t.Fatalf("venmo %q: %v, want a phone_number problem", tc.number, err)
			}
		})
	}
}

// TestNormalizeRequestsPhone: every request that carries a phone number stores it split as
// ParsePhone reads it.
func TestNormalizeRequestsPhone(t *testing.T) {
	const typed = "(415) 513-2552"
	tests := []struct {
		name   string
		stored func() string
	}{
		{"user", func() string {
			r := CreateUserRequest{CountryCode: "+1", PhoneNumber: typed}.Normalize()
			return "+" + r.CountryCode + r.PhoneNumber
		}},
		{"payee", func() string {
			p := Payee{PhoneNumber: typed}.Normalize()
			return "+" + p.CountryCode + p.PhoneNumber
		}},
		{"venmo", func() string {
			return AddPayoutMethodRequest{Platform: PlatformVenmo, PhoneNumber: "+1 415.513.2552"}.Normalize().PhoneNumber
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.stored(); got != "+14155132552" {
				t.Errorf("stored %q, want %q", got, "+14155132552")
			}
		})
	}
}
