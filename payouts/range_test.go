package payouts

import (
	"net/url"
	"testing"
	"time"
)

// TestParseRange: ParseRange reports what it cannot read and reads the rest as given; judging the
// bounds it read is Check's, which the service runs once on every filter.
func TestParseRange(t *testing.T) {
	parse := func(query string) (Range, error) {
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		return ParseRange(q.Get)
	}
	checked := func(query string) error {
		r, err := parse(query)
		if err != nil {
			return err
		}
		p := Problems{}
		r.Check(p)
		return p.Err()
	}
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	all, err := parse("created_gte=2026-03-01T01:00:00%2B01:00&created_lt=2026-04-01T00:00:00Z&amount_gte=5&amount_lte=10")
	if want := (Range{CreatedFrom: march, CreatedTo: march.AddDate(0, 1, 0), AmountMin: 5, AmountMax: 10}); err != nil || all != want {
		t.Errorf("ParseRange = %+v, %v; want %+v", all, err, want)
	}
	const badBounds = "amount_gte=-1&created_gte=2026-03-01T00:00:00Z&created_lt=2026-03-01T00:00:00Z"
	asGiven, readErr := parse(badBounds)
	if asGiven.AmountMin != -1 || !asGiven.CreatedTo.Equal(march) {
		t.Errorf("ParseRange(%s) = %+v, want the bounds as given", badBounds, asGiven)
	}
	_, unreadable := parse("created_gte=yesterday&amount_lte=1.50")
	runValidateCases(t, []validateCase{
		{name: "no bounds", err: checked("")},
		{name: "unreadable values", err: unreadable, fields: []string{QueryCreatedFrom, QueryAmountMax}},
		{name: "bad bounds are read", err: readErr},
		{name: "and Check judges them", err: checked(badBounds), fields: []string{QueryAmountMin, QueryCreatedTo}},
		{name: "minimum above maximum", err: checked("amount_gte=500&amount_lte=499"), fields: []string{QueryAmountMax}},
	})
}
