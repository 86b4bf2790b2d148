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

// ParseDollars parses an amount a person typed, in dollars, in one grammar with one reading:
//
//	amount = [ "-" ] [ "$" ] whole [ "." cents ] | [ "-" ] [ "$" ] "." cents
//	whole  = digit { digit } | digit [ digit [ digit ] ] "," 3digits { "," 3digits }
//	cents  = digit [ digit ]
//
// so "12", "$1,234.56", "1234.56", ".5" and "-5.00" are read, spaces around the amount are
// dropped, and a comma only ever separates thousands and a point only ever starts the cents. A
// decimal comma ("9,99", "10,00", "1.000,00") is refused, never read as 100 times the amount, as
// are more than two decimals, any other character, empty input and overflow. Forms, bulk CSV
// cells and the dashboard's flags all read amounts here.
func ParseDollars(s string) (Money, error) {
	s = strings.TrimSpace(s)
	neg := false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		neg, s = true, rest
	}
	s = strings.TrimPrefix(s, "$")
	if s == "" {
		return 0, errors.New("enter an amount")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	switch {
	case strings.Contains(whole, ",") && !groupedThousands(whole), strings.Contains(frac, ","):
		return 0, errors.New("use a comma only between groups of three digits and a point before the cents, like 1,234.56")
	case !digitsOnly(frac) || (hasDot && frac == "") || (whole == "" && !hasDot):
		return 0, errors.New("enter an amount like 1,234.56")
	case len(frac) > 2:
		return 0, errors.New("use at most two decimals")
	}
	whole = strings.ReplaceAll(whole, ",", "")
	if !digitsOnly(whole) {
		return 0, errors.New("enter an amount like 1,234.56")
	}
	if whole == "" {
		whole = "0"
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

// groupedThousands reports whether s is digits grouped by commas as thousands: a lead of one to
// three digits, then groups of exactly three.
func groupedThousands(s string) bool {
	groups := strings.Split(s, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 || !digitsOnly(groups[0]) {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || !digitsOnly(g) {
			return false
		}
	}
	return true
}

// digitsOnly reports whether s holds ASCII digits alone (or nothing).
func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
