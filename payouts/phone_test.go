package payouts

import "testing"

func TestNormalizePhone(t *testing.T) {
	tests := []struct {
		name, cc, number, wantCC, wantNumber string
	}{
		{"digits", "1", "4155132552", "1", "4155132552"},
		{"parentheses and dash", "1", "(415) 513-2552", "1", "4155132552"},
		{"dots", "1", "415.513.2552", "1", "4155132552"},
		{"spaces", "1", " 415 513 2552 ", "1", "4155132552"},
		{"international, spaced", "1", "+1 415 513 2552", "1", "4155132552"},
		{"international replaces the code", "1", "+44 20 7946 0958", "44", "2079460958"},
		{"international without a code field", "", "+1 415-513-2552", "1", "4155132552"},
		{"international, unspaced", "1", "+14155132552", "1", "4155132552"},
		{"trunk 1 typed again", "1", "1 (415) 513-2552", "1", "4155132552"},
		{"code with plus", " +1 ", "415-513-2552", "1", "4155132552"},
		{"no code", "", "415 513 2552", "", "4155132552"},
		{"letters stay for validation", "1", "415-CALL-NOW", "1", "415CALLNOW"},
		{"empty", "", "", "", ""},
		{"short number keeps its digits", "1", "12345", "1", "12345"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cc, n := NormalizePhone(tc.cc, tc.number)
			if cc != tc.wantCC || n != tc.wantNumber {
				t.Errorf("NormalizePhone(%q, %q) = %q, %q; want %q, %q", tc.cc, tc.number, cc, n, tc.wantCC, tc.wantNumber)
			}
		})
	}
}

// TestNormalizeRequestsPhone: every request that carries a phone number stores its digits.
func TestNormalizeRequestsPhone(t *testing.T) {
	const typed = "(415) 513-2552"
	tests := []struct {
		name   string
		stored func() string
	}{
		{"user", func() string {
			r := CreateUserRequest{CountryCode: "+1", PhoneNumber: typed}.Normalize()
			return r.CountryCode + " " + r.PhoneNumber
		}},
		{"payee", func() string {
			p := Payee{PhoneNumber: typed}.Normalize()
			return p.CountryCode + " " + p.PhoneNumber
		}},
		{"venmo", func() string {
			r := AddPayoutMethodRequest{Platform: PlatformVenmo, PhoneNumber: "+1 415.513.2552"}.Normalize()
			return "1 " + r.PhoneNumber
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.stored(); got != "1 4155132552" {
				t.Errorf("stored %q, want %q", got, "1 4155132552")
			}
		})
	}
}
