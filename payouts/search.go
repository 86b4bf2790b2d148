package payouts

import (
	"strings"
	"unicode"
)

// SearchTerm is one word of a search of users or payout links, lower-cased: a match contains
// it, or, for a word written as a phone number, its digits.
type SearchTerm struct {
	Text   string
	Digits string // the digits alone of a word that reads as a phone number; "" when they are Text
}

// minPhoneDigits is the fewest digits a search matches as part of a phone number: fewer match
// too much to help ("2-5").
const minPhoneDigits = 4

// SearchTerms is what a search matches, the one reading of a search for the service's store and
// for the dashboard, which searches itself where the public API cannot. Its words match in any
// order ("lovelace ada" finds Ada Lovelace); a search that reads as a phone number as a whole
// ("(415) 513-2552", "+1 415 513 2552", "513-2552") is one term whose digits match the phone
// stored as +14155132552.
func SearchTerms(q string) []SearchTerm {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return nil
	}
	if t := searchTerm(q); t.Digits != "" {
		return []SearchTerm{t}
	}
	words := strings.Fields(q)
	out := make([]SearchTerm, len(words))
	for i, w := range words {
		out[i] = searchTerm(w)
	}
	return out
}

// searchTerm is one term, with its digits when it reads as a phone number: digits, a leading +
// and the punctuation of the usual formats, no letters.
func searchTerm(s string) SearchTerm {
	t := SearchTerm{Text: s}
	var digits strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == '+' || strings.ContainsRune(phonePunctuation, r) || unicode.IsSpace(r):
		default:
			return t
		}
	}
	if d := digits.String(); len(d) >= minPhoneDigits && d != s {
		t.Digits = d
	}
	return t
}

// MatchesSearch reports whether text, a search text (UserSearchText, PayoutLinkSearchText),
// holds every term.
func MatchesSearch(text string, terms []SearchTerm) bool {
	for _, t := range terms {
		if !strings.Contains(text, t.Text) && (t.Digits == "" || !strings.Contains(text, t.Digits)) {
			return false
		}
	}
	return true
}

// UserSearchText is what a search of users matches: name, email, phone (+ and digits) and
// username, lower-cased.
func UserSearchText(u User) string {
	username := ""
	if u.Username != nil {
		username = *u.Username
	}
	return searchText(u.FirstName, u.LastName, u.Email, u.PhoneNumber.CountryCode+u.PhoneNumber.PhoneNumber, username)
}

// PayoutLinkSearchText is what a search of payout links matches: the payee's name, email and
// phone, and the memo, lower-cased.
func PayoutLinkSearchText(p Payee, memo string) string {
	return searchText(p.FirstName, p.LastName, p.Email, p.CountryCode+p.PhoneNumber, memo)
}

// searchText joins the fields a search matches, one a line, so that no term matches across two.
func searchText(first, last string, more ...string) string {
	return strings.ToLower(strings.Join(append([]string{first, last, first + " " + last}, more...), "\n"))
}
