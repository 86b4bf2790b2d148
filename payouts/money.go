package payouts

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Money is an amount in integer cents. There are no floats anywhere near money.
type Money int64

// MaxAmount bounds any single amount a request may carry ($10 billion), so sums of a few amounts
// can never overflow int64.
const MaxAmount Money = 1_000_000_000_000

// UnmarshalJSON reads what a server may send for an amount of cents: an integer, a string
// holding one, or an integral number written with a fraction or exponent ("1000.0", 1e3); an
// empty string is zero. A value with a real fraction of a cent, or out of range, is an error.
// Requests never decode into Money: they take int64, so the service stays strict.
func (m *Money) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return errors.New("amount: not a string")
		}
		b = []byte(strings.TrimSpace(s))
		if len(b) == 0 {
			*m = 0
			return nil
		}
	}
	n, err := parseCents(string(b))
	if err != nil {
		return err
	}
	*m = Money(n)
	return nil
}

// parseCents reads an integral number of cents, exactly: big.Rat keeps "1e3" and "1000.0" exact
// and refuses "10.5" without any float rounding.
func parseCents(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	// A huge exponent would make big.Rat build a huge number: no amount needs more than 30.
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(s[i+1:]); err != nil || exp > 30 || exp < -30 {
			return 0, errors.New("amount: must be an integer number of cents")
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || len(s) > 64 {
		return 0, errors.New("amount: must be an integer number of cents")
	}
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, errors.New("amount: must be a whole number of cents within range")
	}
	return r.Num().Int64(), nil
}

// String formats m as dollars: $1,234.56, -$0.05.
func (m Money) String() string {
	n := int64(m)
	sign := ""
	u := uint64(n)
	if n < 0 {
		sign = "-"
		u = uint64(-(n + 1)) + 1 // safe for math.MinInt64
	}
	cents := u % 100
	return sign + "$" + groupDigits(u/100) + "." + string(rune('0'+cents/10)) + string(rune('0'+cents%10))
}

// Grouped writes n with thousands separators, as people read counts: 2,000; -1,234,567.
func Grouped(n int64) string {
	if n < 0 {
		return "-" + groupDigits(uint64(-(n+1))+1) // safe for math.MinInt64
	}
	return groupDigits(uint64(n))
}

// groupDigits writes u with a comma between each group of three digits.
func groupDigits(u uint64) string {
	digits := strconv.FormatUint(u, 10)
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Decimal formats m as a plain decimal number of dollars ("1234.56"), for CSV and form values.
func (m Money) Decimal() string {
	s := m.String()
	s = strings.Replace(s, "$", "", 1)
	return strings.ReplaceAll(s, ",", "")
}

// ParseDollars parses an amount a person typed, in dollars: "12", "12.3", "12.34", "$1,234.56",
// "-5.00". More than two decimals, overflow, and empty input are errors.
func ParseDollars(s string) (Money, error) {
	s = strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	s = strings.TrimPrefix(s, "$")
	s = strings.ReplaceAll(s, ",", "")
	if s == "" {
		return 0, errors.New("enter an amount")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if hasDot && len(frac) == 0 {
		return 0, errors.New("enter an amount like 12.34")
	}
	if len(frac) > 2 {
		return 0, errors.New("use at most two decimals")
	}
	if whole == "" {
		whole = "0"
	}
	for _, part := range []string{whole, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				return 0, errors.New("enter an amount like 12.34")
			}
		}
	}
	for len(frac) < 2 {
		frac += "0"
	}
	d, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || d > (math.MaxInt64-99)/100 {
		return 0, errors.New("amount is too large")
	}
	c, _ := strconv.ParseInt(frac, 10, 64)
	n := d*100 + c
	if neg {
		n = -n
	}
	return Money(n), nil
}
