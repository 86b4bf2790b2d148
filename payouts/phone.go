package payouts

import "strings"

// phonePunctuation is what people type between the digits of a phone number.
const phonePunctuation = " \u00a0()-./"

// NormalizePhone returns a phone number as people type it in the form the API stores: the
// country code's digits and the national number's digits. It drops the punctuation of the usual
// formats ("(415) 513-2552", "415.513.2552", "415 513 2552"); a number written "+CC ..." brings
// its own country code. Anything else is left in place for the validation to name.
func NormalizePhone(countryCode, number string) (string, string) {
	countryCode = strings.TrimPrefix(strings.TrimSpace(countryCode), "+")
	number = strings.TrimSpace(number)
	if rest, ok := strings.CutPrefix(number, "+"); ok {
		if cc, national, split := strings.Cut(rest, " "); split && ValidCountryCode(cc) {
			countryCode, number = cc, national
		} else {
			number = rest
		}
	}
	number = strings.Map(func(r rune) rune {
		if strings.ContainsRune(phonePunctuation, r) {
			return -1
		}
		return r
	}, number)
	// "1 415 513 2552" and "+14155132552": the code typed again in front of the number.
	if countryCode != "" && len(number) > 10 && strings.HasPrefix(number, countryCode) {
		number = number[len(countryCode):]
	}
	return countryCode, number
}
