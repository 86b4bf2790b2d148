package components

import (
	"github.com/disburse/disburse/payouts"
)

// Phone writes a phone number as people read it in its country, with the country's code:
// "(415) 513-2552 (US)", "020 7946 0958 (GB)". A number stored before numbers were parsed
// that is not valid shows as kept, "+CC DIGITS", and says it needs review: nothing is guessed.
func Phone(p payouts.Phone) string {
	switch {
	case p.PhoneNumber == "":
		return ""
	case p.Valid():
		return p.National()
	}
	return p.String() + " (needs review)"
}

// VenmoPhone writes a Venmo method's number as stored (payouts.StoredVenmoPhone): nationally, or
// as kept with "needs review".
func VenmoPhone(stored string) string {
	p, err := payouts.StoredVenmoPhone(stored)
	if err != nil {
		return stored + " (needs review)"
	}
	return Phone(p)
}
