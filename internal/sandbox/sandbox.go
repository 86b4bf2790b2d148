// Package sandbox stands in for the outside world a real deployment talks to: the payment rails,
// the message gateway, the identity check and the review rules. It implements the service's
// Rail, Notifier, Screener and IdentityVerifier, and payoutd (or a test) wires it in; the service
// never imports it.
//
// Every test trigger of the sandbox is listed here, and the README's "Sandbox rails and test
// triggers" documents the same table for API users:
//
//   - payout method value (email, handle, phone or cash tag) containing "slowfail", or an account
//     number ending in 9999: the rail accepts the payout and it fails when it would have settled;
//   - payout method value containing "fail", or an account number ending in 0000: the rail
//     rejects the payout at submission;
//   - a payout of exactly $13.13: held for review (flagged);
//   - a message to an email address containing "bounce", or to a phone number ending in 0000: not
//     delivered;
//   - SSN last four 0000 in a hosted flow's identity step: identity not verified.
package sandbox

import (
	"strings"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// The trigger table.
const (
	TriggerSlowFail       = "slowfail"
	TriggerSlowFailDigits = "9999"
	TriggerFail           = "fail"
	TriggerFailDigits     = "0000"

	TriggerFlagAmount payouts.Money = 1313

	TriggerBounce      = "bounce"
	TriggerBouncePhone = "0000"

	TriggerIdentityFailSSN = "0000"
)

// methodValue is the identifying value of a payout method the rail triggers look at.
func methodValue(m service.PayoutMethodRecord) string {
	return strings.ToLower(strings.Join([]string{m.Email, m.Handle, m.PhoneNumber, m.CashTag}, " "))
}

// slowFails reports whether a method carries the slow-fail trigger. It wins over the fail
// trigger, whose word it contains.
func slowFails(m service.PayoutMethodRecord) bool {
	return strings.Contains(methodValue(m), TriggerSlowFail) || m.Mask == TriggerSlowFailDigits
}

// rejects reports whether a method carries the fail trigger.
func rejects(m service.PayoutMethodRecord) bool {
	return !slowFails(m) && (strings.Contains(methodValue(m), TriggerFail) || m.Mask == TriggerFailDigits)
}

// bounces reports whether a message address carries the bounce trigger.
func bounces(to string) bool {
	return strings.Contains(strings.ToLower(to), TriggerBounce) || strings.HasSuffix(to, TriggerBouncePhone)
}
