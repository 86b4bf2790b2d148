package components

import (
	"github.com/nyaruka/phonenumbers"

	"github.com/disburse/disburse/payouts"
)

// Phone writes a phone number the way people read it, with the country's own grouping:
// "+1 415-513-2552", "+44 20 7946 0958". The service keeps digits only; a number the
// phone-number library cannot read shows as kept, "+CC DIGITS", so nothing is lost.
func Phone(p payouts.Phone) string {
	if p.PhoneNumber == "" {
		return ""
	}
	n, err := phonenumbers.Parse("+"+p.CountryCode+p.PhoneNumber, "")
	if err != nil {
		return p.String()
	}
	return phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
}
