package payouts_test

import (
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestSearchTerms checks the one reading of a search: phone numbers in the usual formats find
// the phone as stored, names match in any order, and every word must match.
func TestSearchTerms(t *testing.T) {
	ada := payouts.UserSearchText(payouts.User{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		PhoneNumber: payouts.Phone{CountryCode: "1", PhoneNumber: "4155132552"}})
	for _, tc := range []struct {
		search string
		want   bool
	}{
		{"(415) 513-2552", true},
		{"415-513-2552", true},
		{"415.513.2552", true},
		{"513-2552", true},
		{"+1 415 513 2552", true},
		{"+14155132552", true},
		{"4155132552", true},
		{"lovelace ada", true},
		{"LOVELACE  Ada", true},
		{"ada lovelace", true},
		{"ada@example", true},
		{"lovelace grace", false},
		{"(415) 513-2553", false},
		{"ada 999-9999", false},
		{"", true},
	} {
		t.Run(tc.search, func(t *testing.T) {
			if got := payouts.MatchesSearch(ada, payouts.SearchTerms(tc.search)); got != tc.want {
				t.Errorf("search %q matches Ada Lovelace, +1 415 513 2552: %v, want %v (terms %+v)",
					tc.search, got, tc.want, payouts.SearchTerms(tc.search))
			}
		})
	}
}
