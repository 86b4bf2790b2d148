package payouts

import (
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzParseDollars: whatever a person types, ParseDollars never panics, and an amount it
// accepts is exact: written back as a decimal it parses to the same cents.
func FuzzParseDollars(f *testing.F) {
	for _, s := range []string{"12", "12.3", "12.34", "$1,234.56", "-5.00", "", ".5", "1.", "1e3", "99999999999999999999", "9,99", "1.000,00", "1,000,000.00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseDollars(s)
		if err != nil {
			return
		}
		back, err := ParseDollars(m.Decimal())
		if err != nil || back != m {
			t.Fatalf("ParseDollars(%q) = %d, but its Decimal %q reads back as %d, %v", s, m, m.Decimal(), back, err)
		}
	})
}

// FuzzMoneyUnmarshalJSON: an amount from a server decodes exactly or is refused, never panics;
// what it accepts re-encodes as the same cents.
func FuzzMoneyUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`1000`, `"1000"`, `1000.0`, `1e3`, `10.5`, `""`, `null`, `1e999999`, `"-0"`, `-9223372036854775808`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var m Money
		if err := m.UnmarshalJSON([]byte(s)); err != nil {
			return
		}
		var back Money
		if err := json.Unmarshal([]byte(strconv.FormatInt(int64(m), 10)), &back); err != nil || back != m {
			t.Fatalf("UnmarshalJSON(%q) = %d, which reads back as %d, %v", s, m, back, err)
		}
	})
}
