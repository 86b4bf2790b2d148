package payouts

import (
	"strings"
	"testing"
)

// TestParseDollarsGrammar: an amount a person types has one reading. A comma only ever groups
// thousands (three digits after a lead of one to three), a point only ever starts the cents, so a
// decimal comma ("9,99", "10,00", "1.000,00") is refused with a message saying how to write it
// rather than read as a hundred times the amount.
func TestParseDollarsGrammar(t *testing.T) {
	accepted := []struct {
		in   string
		want Money
	}{
		{"1000.00", 1000_00}, {"1,000.00", 1000_00}, {"1000", 1000_00}, {"1,000", 1000_00},
		{"$1,234.56", 1234_56}, {"$12", 12_00}, {"12.3", 12_30}, {"0.05", 5}, {".5", 50},
		{"  9.99 ", 9_99}, {"-5.00", -5_00}, {"-$1,000", -1000_00}, {"12,345,678.90", 12_345_678_90},
		{"999,999", 999_999_00}, {"0", 0}, {"007", 7_00},
	}
	for _, tc := range accepted {
		t.Run("accepts "+tc.in, func(t *testing.T) {
			got, err := ParseDollars(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("ParseDollars(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
	refused := []struct {
		in, says string
	}{
		{"9,99", "comma"}, {"10,00", "comma"}, {"1.000,00", "comma"}, {"1,0000.00", "comma"},
		{"1000,00", "comma"}, {",100", "comma"}, {"1,000,", "comma"}, {"1,,000", "comma"},
		{"1234,567", "comma"}, {"1,000.000", "two decimals"}, {"12.345", "two decimals"},
		{"1.000.00", "like 1,234.56"}, {"1.", "like 1,234.56"}, {"", "enter an amount"},
		{"$", "enter an amount"}, {"1 000", "like 1,234.56"}, {"1e3", "like 1,234.56"}, {"+5", "like 1,234.56"},
		{"$-5", "like 1,234.56"}, {"--5", "like 1,234.56"}, {"１２", "like 1,234.56"}, {"12$", "like 1,234.56"},
		{"1'000", "like 1,234.56"}, {"92233720368547758.07", "too large"}, {"-", "enter an amount"},
	}
	for _, tc := range refused {
		t.Run("refuses "+tc.in, func(t *testing.T) {
			got, err := ParseDollars(tc.in)
			if err == nil {
				t.Fatalf("ParseDollars(%q) = %d, want it refused", tc.in, got)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("ParseDollars(%q) refused with %q, want it to say %q", tc.in, err, tc.says)
			}
		})
	}
}
