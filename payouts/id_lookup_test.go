package payouts

import "testing"

func TestNormalizeIDQuery(t *testing.T) {
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
			got, err := NormalizeIDQuery(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("NormalizeIDQuery(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && ErrorCode(err) != EInvalidInput {
				t.Errorf("error code %q, want %s", ErrorCode(err), EInvalidInput)
			}
		})
	}
}

func TestShortID(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"0199b5a2-7c1e-7d3a-9f10-2b8f5d6a9e10", "5d6a9e10"},
		{"5d6a9e10", "5d6a9e10"},
		{"abc", "abc"},
		{"", ""},
	} {
		t.Run(tc.id, func(t *testing.T) {
			if got := ShortID(tc.id); got != tc.want {
				t.Errorf("ShortID(%q) = %q, want %q", tc.id, got, tc.want)
			}
		})
	}
}
