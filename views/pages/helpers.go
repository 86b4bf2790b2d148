package pages

import (
	"strings"

	"disburse/payouts"
	"disburse/views/components"
)

func withType(f components.FieldProps, t string) components.FieldProps {
	f.Type = t
	return f
}

func withHint(f components.FieldProps, hint string) components.FieldProps {
	f.Hint = hint
	return f
}

func withInputMode(f components.FieldProps, mode string) components.FieldProps {
	f.InputMode = mode
	return f
}

// methodDetail is what identifies a payout method to a person, never a full account number.
func methodDetail(m payouts.PayoutMethod) string {
	switch {
	case m.Mask != "" && strings.Contains(m.Description, m.Mask):
		return m.Description
	case m.Mask != "":
		return strings.TrimSpace(m.Description + " •••• " + m.Mask)
	case m.Email != "":
		return m.Email
	case m.Handle != "":
		return m.Handle
	case m.PhoneNumber != "":
		return m.PhoneNumber
	case m.CashTag != "":
		return m.CashTag
	}
	return m.Description
}

// transferTypeLabel says what a transfer did, in words.
func transferTypeLabel(t payouts.Transfer) string {
	switch t.Type {
	case payouts.TransferRefill:
		return "Deposit"
	case payouts.TransferPayout:
		if t.ExternalData.Platform != "" {
			return "Payout to " + t.ExternalData.Platform.Label()
		}
		return "Payout"
	case payouts.TransferBalance:
		// The sign says the direction as the user's wallet sees it; see handlers/transfer.go.
		if t.Amount < 0 {
			return "App to user"
		}
		return "User to app"
	}
	return string(t.Type)
}

func methodURL(userID string, p payouts.Platform) string {
	return "/users/" + userID + "/payout-methods/new?platform=" + string(p)
}

// routingField is the routing number field with its checksum echoed: a problem when the number
// cannot be a routing number, a confirmation when its ABA checksum holds.
func routingField(userID, value, problem string) components.FieldProps {
	f := components.FieldProps{Name: "routing_number", Label: "Routing number", Value: value, Error: problem,
		Required: true, InputMode: "numeric", Hint: "The 9 digits at the bottom left of a check.",
		CheckURL: "/users/" + userID + "/payout-methods/routing-number"}
	switch {
	case problem != "" || value == "":
	case payouts.ValidRoutingNumber(value):
		f.Hint = "✓ Valid routing number (ABA checksum matches)."
	default:
		f.Error = "not a valid routing number: it must be 9 digits with a matching ABA checksum"
	}
	return f
}

// transferAmount is how much a transfer moved. Balance transfers carry the API's sign (negative
// from the app to the user); the type says the direction, so the amount is shown without it.
func transferAmount(t payouts.Transfer) payouts.Money {
	if t.Type == payouts.TransferBalance && t.Amount < 0 {
		return -t.Amount
	}
	return t.Amount
}
