package payouts

import (
	"errors"
	"net/mail"
	"strconv"
	"strings"
	"time"
)

// ValidID reports whether s looks like a UUID (8-4-4-4-12 hex digits), the form of every object
// id but transactions'.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// AllDigits reports whether s is non-empty and only ASCII digits.
func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidEmail reports whether s is a plain address (no display name) of reasonable length.
func ValidEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndexByte(s, '@'):], ".")
}

// ValidCountryCode reports whether s is a calling code: 1 to 3 digits, no "+".
func ValidCountryCode(s string) bool { return len(s) <= 3 && AllDigits(s) }

// ValidUsername reports whether s is 1 to 50 letters, digits or "-".
func ValidUsername(s string) bool {
	if len(s) < 1 || len(s) > 50 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

// ValidRoutingNumber reports whether s is a 9-digit ABA routing number with a valid checksum:
// 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) is a multiple of 10.
func ValidRoutingNumber(s string) bool {
	if len(s) != 9 || !AllDigits(s) {
		return false
	}
	weights := [3]int{3, 7, 1}
	sum := 0
	for i := 0; i < 9; i++ {
		sum += int(s[i]-'0') * weights[i%3]
	}
	return sum%10 == 0 && s != "000000000"
}

// ValidAccountNumber reports whether s is a bank account number: 4 to 17 digits.
func ValidAccountNumber(s string) bool { return len(s) >= 4 && len(s) <= 17 && AllDigits(s) }

// ValidCashTag reports whether s is a $cashtag: "$" then 1 to 20 letters, digits, "-" or "_",
// with at least one letter.
func ValidCashTag(s string) bool {
	if len(s) < 2 || len(s) > 21 || s[0] != '$' {
		return false
	}
	letter := false
	for _, r := range s[1:] {
		switch {
		case ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'):
			letter = true
		case ('0' <= r && r <= '9') || r == '-' || r == '_':
		default:
			return false
		}
	}
	return letter
}

// ValidHandle reports whether s is a Venmo handle: 5 to 30 letters, digits, "-" or "_", with an
// optional leading "@".
func ValidHandle(s string) bool {
	s = strings.TrimPrefix(s, "@")
	if len(s) < 5 || len(s) > 30 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

// ValidDate reports whether s is a calendar date written YYYY-MM-DD.
func ValidDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := timeParseDate(s)
	return err == nil
}

// Last4 returns the last four characters of s, the only part of a secret number ever shown.
func Last4(s string) string {
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}

// The checks below record one problem per field on a Problems, so that a request's Validate
// names every problem at once.

// amount records a problem with an amount in cents: zero, out of range, or not positive where
// signed is false.
func (p Problems) amount(amount int64, signed bool) {
	switch {
	case amount == 0 && signed:
		p.Add("amount", "must not be zero")
	case amount <= 0 && !signed:
		p.Add("amount", "must be greater than zero")
	case amount > int64(MaxAmount) || amount < -int64(MaxAmount):
		p.Add("amount", "must be at most "+MaxAmount.String())
	}
}

// id records a problem with an object id: missing where required, or not a UUID.
func (p Problems) id(field, v string, required bool) {
	switch {
	case v == "" && required:
		p.Add(field, "is required")
	case v != "" && !ValidID(v):
		p.Add(field, "is not a valid id")
	}
}

// key records a problem with an idempotency key that is not a UUID.
func (p Problems) key(v string) {
	if v != "" && !ValidID(v) {
		p.Add("idempotency_key", "must be a UUID")
	}
}

func (p Problems) metadata(m Metadata) {
	if problem := ValidateMetadata(m); problem != "" {
		p.Add("metadata", problem)
	}
}

// maxLen records a problem when the trimmed v is longer than n bytes.
func (p Problems) maxLen(field, v string, n int) {
	if len(strings.TrimSpace(v)) > n {
		p.Add(field, "must be at most "+strconv.Itoa(n)+" characters")
	}
}

// Required records a problem with a required text: empty once trimmed, or over 200 bytes.
func (p Problems) Required(field, v string) {
	if strings.TrimSpace(v) == "" {
		p.Add(field, "is required")
	}
	p.maxLen(field, v, 200)
}

// Phone records the problem of a phone number (ParsePhone) under prefix's fields
// (prefix+"phone_number", or prefix+"country_code" for a code that is no country's), and returns
// it parsed. An empty number is a problem when required.
func (p Problems) Phone(prefix, countryCode, number string, required bool) Phone {
	if strings.TrimSpace(number) == "" {
		if required {
			p.Add(prefix+"phone_number", "is required")
		}
		return Phone{}
	}
	phone, err := ParsePhone(countryCode, number)
	switch {
	case errors.Is(err, ErrCallingCode):
		p.Add(prefix+"country_code", err.Error())
	case err != nil:
		p.Add(prefix+"phone_number", err.Error())
	}
	return phone
}

// BirthDate records a problem with a date of birth: missing, not YYYY-MM-DD, or not a date
// between 1900 and now.
func (p Problems) BirthDate(field, v string, now time.Time) {
	switch {
	case v == "":
		p.Add(field, "is required")
	case !ValidDate(v):
		p.Add(field, "must be a date written YYYY-MM-DD")
	default:
		d, _ := timeParseDate(v)
		if !d.Before(now) || d.Year() < 1900 {
			p.Add(field, "must be a past date")
		}
	}
}

// email records a problem with an address, required or not.
func (p Problems) email(field, v string, required bool) {
	switch {
	case v == "" && required:
		p.Add(field, "is required")
	case v != "" && !ValidEmail(v):
		p.Add(field, "is not a valid email address")
	}
}
