package payouts

import (
	"errors"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Every phone number the API takes (a user's, a payout link payee's, a Venmo method's, a hosted
// flow's) is read by ParsePhone, with libphonenumber's rules for each country: it keeps the
// number's country and is valid there, so "+" + CountryCode + PhoneNumber is its E.164 form.

// DefaultCallingCode is the country a number typed without one is read in: the United States.
const DefaultCallingCode = "1"

// Problems of a phone number, as its field's message.
var (
	errPhoneInvalid   = errors.New("is not a valid phone number; write it with its country code, like +1 415 555 2671")
	errCallingCode    = errors.New("is not a country calling code")
	errNotUSMobile    = errors.New("must be a US mobile number for Venmo, like +1 415 555 2671")
	errPhoneMalformed = errors.New("must be digits, spaces and ( ) - . with an optional leading +")
)

// ParsePhone reads a phone number as people type it ("(415) 555-2671", "+44 20 7946 0958",
// "+91 98512 34567"). A number starting with "+" brings its own country; any other is read in
// countryCode's country (the calling code's digits, "+" allowed; DefaultCallingCode when empty).
// It returns the number split as the API writes it: the calling code and the national
// significant number. An error is the message of the phone number's field, or of the country
// code's (ErrCallingCode).
func ParsePhone(countryCode, number string) (Phone, error) {
	countryCode = strings.TrimPrefix(strings.TrimSpace(countryCode), "+")
	number = strings.TrimSpace(number)
	if countryCode == "" {
		countryCode = DefaultCallingCode
	}
	if strings.IndexFunc(number, func(r rune) bool {
		return !(r >= '0' && r <= '9') && !strings.ContainsRune(phonePunctuation+"+", r)
	}) >= 0 {
		return Phone{}, errPhoneMalformed
	}
	region := "ZZ" // unknown: the number must bring its own country
	if !strings.HasPrefix(number, "+") {
		cc, err := strconv.Atoi(countryCode)
		if err != nil || !ValidCountryCode(countryCode) {
			return Phone{}, ErrCallingCode
		}
		if region = phonenumbers.GetRegionCodeForCountryCode(cc); region == "ZZ" {
			return Phone{}, ErrCallingCode
		}
	}
	n, err := phonenumbers.Parse(number, region)
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return Phone{}, errPhoneInvalid
	}
	return Phone{CountryCode: strconv.Itoa(int(n.GetCountryCode())), PhoneNumber: phonenumbers.GetNationalSignificantNumber(n)}, nil
}

// ErrCallingCode is ParsePhone's error for a country code that is no country's calling code:
// the country code's field is the one to name.
var ErrCallingCode = errCallingCode

// ParseVenmoPhone is ParsePhone for a Venmo recipient, which PayPal's reference requires to be
// a US mobile number (a US number is mobile or fixed alike by its digits, and taken).
func ParseVenmoPhone(number string) (Phone, error) {
	p, err := ParsePhone(DefaultCallingCode, number)
	if err != nil {
		return Phone{}, err
	}
	n := p.parsed()
	switch phonenumbers.GetNumberType(n) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE_OR_MOBILE:
	default:
		return Phone{}, errNotUSMobile
	}
	if phonenumbers.GetRegionCodeForNumber(n) != "US" {
		return Phone{}, errNotUSMobile
	}
	return p, nil
}

// errNeedsReview is a Venmo number stored before numbers kept their country.
var errNeedsReview = errors.New("was saved without its country before numbers kept theirs and needs review: save it again as a US mobile number")

// StoredVenmoPhone reads a Venmo method's number as stored: E.164 since migration 0027. One
// without "+" was stored before numbers kept their country (its digits may be any country's) and
// needs review: an error, never a guess.
func StoredVenmoPhone(stored string) (Phone, error) {
	if !strings.HasPrefix(stored, "+") {
		return Phone{}, errNeedsReview
	}
	return ParseVenmoPhone(stored)
}

// phonePunctuation is what people type between the digits of a phone number.
const phonePunctuation = " \u00a0()-./"

// E164 is the number as "+" and its digits; "" for none.
func (p Phone) E164() string {
	if p.PhoneNumber == "" {
		return ""
	}
	return "+" + p.CountryCode + p.PhoneNumber
}

// parsed is the number for libphonenumber; one that does not parse is empty.
func (p Phone) parsed() *phonenumbers.PhoneNumber {
	n, err := phonenumbers.Parse(p.E164(), "ZZ")
	if err != nil {
		return &phonenumbers.PhoneNumber{}
	}
	return n
}

// Valid reports whether the number is one ParsePhone would give: numbers stored before every
// number was parsed may not be (shown as needing review, never guessed at).
func (p Phone) Valid() bool {
	return p.PhoneNumber != "" && phonenumbers.IsValidNumber(p.parsed())
}

// National is the number as it is written in its country, with the country's ISO code:
// "(415) 555-2671 (US)", "020 7946 0958 (GB)". A number that is not valid is written +CC NUMBER.
func (p Phone) National() string {
	if !p.Valid() {
		return p.String()
	}
	n := p.parsed()
	return phonenumbers.Format(n, phonenumbers.NATIONAL) + " (" + phonenumbers.GetRegionCodeForNumber(n) + ")"
}

// normalizePhone is a number typed with its country code split as the API stores it when it
// reads as a phone number, else both as typed (trimmed), for the validation to name.
func normalizePhone(countryCode, number string) (string, string) {
	countryCode, number = strings.TrimPrefix(strings.TrimSpace(countryCode), "+"), strings.TrimSpace(number)
	if number == "" {
		return countryCode, ""
	}
	phone, err := ParsePhone(countryCode, number)
	if err != nil {
		return countryCode, number
	}
	return phone.CountryCode, phone.PhoneNumber
}
