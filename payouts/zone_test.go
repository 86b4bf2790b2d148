package payouts_test

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestLoadZone: an operator's zone is an IANA name this machine knows, or "" for UTC; the
// machine's own zone ("Local") and anything else are refused, the same for the service's stats
// and the dashboard's settings, which both call it.
func TestLoadZone(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // the location's name; "" refused
	}{
		{"America/New_York", "America/New_York"},
		{"Europe/London", "Europe/London"},
		{"UTC", "UTC"},
		{"", "UTC"},
		{"Local", ""},
		{"Mars/Olympus_Mons", ""},
		{"../../etc/passwd", ""},
		{"/etc/localtime", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, ok := payouts.LoadZone(tc.name)
			switch {
			case tc.want == "" && ok:
				t.Errorf("LoadZone(%q) = %v, want it refused", tc.name, loc)
			case tc.want != "" && (!ok || loc.String() != tc.want):
				t.Errorf("LoadZone(%q) = %v, %v, want %s", tc.name, loc, ok, tc.want)
			}
		})
	}
}
