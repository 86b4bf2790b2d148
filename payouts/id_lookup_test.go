package payouts

import "testing"

func TestNormalizeIDPrefix(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"a1b2c3d4", "a1b2c3d4", true},
		{" A1B2C3D4 ", "a1b2c3d4", true},
		{"a1b2c3d4-", "a1b2c3d4-", true},
		{"a1b2c3d4-1234-4abc-8def-0123456789ab", "a1b2c3d4-1234-4abc-8def-0123456789ab", true},
		{"a1b2c3d", "", false},                               // shorter than a short id
		{"a1b2c3d4e", "", false},                             // no hyphen where an id has one
		{"a1b2c3g4", "", false},                              // not hexadecimal
		{"a1b2c3d4%", "", false},                             // a LIKE wildcard
		{"a1b2c3d4-1234-4abc-8def-0123456789abc", "", false}, // longer than an id
		{"", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormalizeIDPrefix(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("NormalizeIDPrefix(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && ErrorCode(err) != EInvalidInput {
				t.Errorf("error code %q, want %s", ErrorCode(err), EInvalidInput)
			}
		})
	}
}
