package payouts

import (
	"net/mail"
	"strings"
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

// ValidPhoneNumber reports whether s is a national number: 4 to 14 digits.
func ValidPhoneNumber(s string) bool { return len(s) >= 4 && len(s) <= 14 && AllDigits(s) }

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
