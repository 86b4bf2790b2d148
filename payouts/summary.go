package payouts

import (
	"strconv"
	"strings"
	"time"
)

// Summary is our extension beside the transfer and transaction lists (GET /v2/transfers/summary,
// GET /v2/transactions/summary): how many rows a filter matches and the money they moved in and
// out of the app's wallet, in cents. Exact is false when the figures are an estimate, which a
// very large set gets so that the answer stays fast.
type Summary struct {
	Count    int64 `json:"count"`
	MoneyIn  Money `json:"money_in"`
	MoneyOut Money `json:"money_out"`
	Exact    bool  `json:"exact"`
	// ByType is the same figures for each type of row the set holds (a transfer's type, or a
	// ledger line's), which add up to the whole.
	ByType []TypeTotal `json:"by_type"`
}

// Range narrows a list by creation time, [CreatedFrom, CreatedTo), and by the unsigned amount,
// [AmountMin, AmountMax]; zero values are no bound. The transfer and transaction filters embed
// it, so it is read, checked and written once for both.
type Range struct {
	CreatedFrom, CreatedTo time.Time
	AmountMin, AmountMax   Money
}

// The query parameters of a Range.
const (
	QueryCreatedFrom = "created_gte"
	QueryCreatedTo   = "created_lt"
	QueryAmountMin   = "amount_gte"
	QueryAmountMax   = "amount_lte"
)

// ParseRange reads a Range from query parameters (get returns one by name): instants in RFC 3339
// and amounts in cents. Every unreadable value is a problem on its parameter. It does not judge
// the bounds it read: the service checks every filter's range (Range.Check), whoever sent it.
func ParseRange(get func(string) string) (Range, error) {
	p := Problems{}
	r := parseCreated(p, get)
	cents := func(key string) Money {
		v := strings.TrimSpace(get(key))
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			p.Add(key, "must be a whole number of cents")
		}
		return Money(n)
	}
	r.AmountMin, r.AmountMax = cents(QueryAmountMin), cents(QueryAmountMax)
	return r, p.Err()
}

// ParseCreatedRange is ParseRange for a list whose rows have no amount (the events): it reads
// the creation bounds alone.
func ParseCreatedRange(get func(string) string) (Range, error) {
	p := Problems{}
	r := parseCreated(p, get)
	return r, p.Err()
}

// parseCreated reads the creation bounds of a Range, each unreadable one a problem on p.
func parseCreated(p Problems, get func(string) string) Range {
	return Range{CreatedFrom: parseInstant(p, QueryCreatedFrom, get(QueryCreatedFrom)),
		CreatedTo: parseInstant(p, QueryCreatedTo, get(QueryCreatedTo))}
}

// parseInstant reads the query parameter key, whose value is v, as an RFC 3339 instant, in UTC;
// empty is the zero time, anything else unreadable a problem on key.
func parseInstant(p Problems, key, v string) time.Time {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		p.Add(key, "must be an RFC 3339 instant, like 2026-01-31T00:00:00Z")
	}
	return t.UTC()
}

// Check records the problems of a range on p: negative or too large amounts, a minimum above the
// maximum, an end not after the start.
func (r Range) Check(p Problems) {
	for key, m := range map[string]Money{QueryAmountMin: r.AmountMin, QueryAmountMax: r.AmountMax} {
		if m < 0 || m > MaxAmount {
			p.Add(key, "must be from 0 to "+strconv.FormatInt(int64(MaxAmount), 10)+" cents")
		}
	}
	if r.AmountMax != 0 && r.AmountMin > r.AmountMax {
		p.Add(QueryAmountMax, "must not be below "+QueryAmountMin)
	}
	if !r.CreatedFrom.IsZero() && !r.CreatedTo.IsZero() && !r.CreatedTo.After(r.CreatedFrom) {
		p.Add(QueryCreatedTo, "must be after "+QueryCreatedFrom)
	}
}

// Query writes the range's bounds with set, the zero ones left out.
func (r Range) Query(set func(key, value string)) {
	if !r.CreatedFrom.IsZero() {
		set(QueryCreatedFrom, r.CreatedFrom.UTC().Format(time.RFC3339Nano))
	}
	if !r.CreatedTo.IsZero() {
		set(QueryCreatedTo, r.CreatedTo.UTC().Format(time.RFC3339Nano))
	}
	if r.AmountMin != 0 {
		set(QueryAmountMin, strconv.FormatInt(int64(r.AmountMin), 10))
	}
	if r.AmountMax != 0 {
		set(QueryAmountMax, strconv.FormatInt(int64(r.AmountMax), 10))
	}
}
