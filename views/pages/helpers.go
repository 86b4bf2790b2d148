package pages

import (
	"slices"
	"strconv"
	"strings"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/paths"
)

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
		return components.VenmoPhone(m.PhoneNumber)
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
		if t.HoldsForLink() {
			return "Payout link" // the app's money reserved for the link, paid when it is claimed
		}
		// The sign says the direction as the user's wallet sees it; see handlers/transfer.go.
		if t.Amount < 0 {
			return "App to user"
		}
		return "User to app"
	}
	return string(t.Type)
}

// routingField is the routing number field with its checksum echoed: a problem when the number
// cannot be a routing number, a confirmation when its ABA checksum holds.
func routingField(userID, value, problem string) components.FieldProps {
	f := components.FieldProps{Name: "routing_number", Label: "Routing number", Value: value, Error: problem,
		Required: true, InputMode: "numeric", Hint: "The 9 digits at the bottom left of a check.",
		CheckURL: paths.RoutingNumberCheck(userID)}
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

// TransferTypeName names a type of transfer, as filters offer it.
func TransferTypeName(t payouts.TransferType) string {
	switch t {
	case payouts.TransferRefill:
		return "Deposit"
	case payouts.TransferPayout:
		return "Payout"
	case payouts.TransferBalance:
		return "Between app and user"
	}
	return string(t)
}

// TransactionTypeName names what a ledger line did: a line of the same type as a transfer is
// named as the transfer is (TransferTypeName); a fee and the rest are named for themselves.
func TransactionTypeName(t payouts.TransactionType) string {
	switch t {
	case payouts.TransactionFee:
		return "Fee"
	case payouts.TransactionPayment:
		return "Payment"
	case payouts.TransactionSurrogate:
		return "Surrogate"
	}
	return TransferTypeName(payouts.TransferType(t))
}

// TransactionStatusName names where a ledger line stands, as its badge does.
func TransactionStatusName(s string) string {
	switch s {
	case "posted":
		return "Posted"
	case "pending":
		return "Pending"
	case "voided":
		return "Voided"
	}
	return s
}

// TransferStatusName names a transfer status.
func TransferStatusName(s payouts.TransferStatus) string {
	switch s {
	case payouts.TransferCreated:
		return "Created"
	case payouts.TransferPending:
		return "Pending"
	case payouts.TransferCompleted:
		return "Completed"
	case payouts.TransferFailed:
		return "Failed"
	case payouts.TransferFlagged:
		return "Flagged"
	}
	return string(s)
}

// LinkStatusName names a payout link status.
func LinkStatusName(s payouts.PayoutLinkStatus) string {
	switch s {
	case payouts.LinkSent:
		return "Sent"
	case payouts.LinkDelivered:
		return "Delivered"
	case payouts.LinkDeliveryPending:
		return "Delivery pending"
	case payouts.LinkDeliveryFailed:
		return "Delivery failed"
	case payouts.LinkClaimed:
		return "Claimed"
	case payouts.LinkCanceled:
		return "Canceled"
	}
	return string(s)
}

// StepName names a step of a hosted flow for an operator.
func StepName(step string) string { return payouts.StepLabel(step, payouts.ForOperator) }

// ObjectTypeName names a kind of object of the audit log.
func ObjectTypeName(t string) string {
	switch t {
	case "payout_link":
		return "Payout link"
	case "payout_request":
		return "Payout request"
	case "transfers":
		return "Transfers (exports)"
	case "transactions":
		return "Transactions (exports)"
	}
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// PayeeName is who a payout link is for, in words: a name, else an email or phone, else "anyone
// with the link".
func PayeeName(p payouts.Payee) string {
	name := strings.TrimSpace(p.FirstName + " " + p.LastName)
	switch {
	case name != "":
		return name
	case p.Email != "":
		return p.Email
	case p.PhoneNumber != "":
		return payeePhone(p)
	}
	return "anyone with the link"
}

// payeeContact is how a payee is reached: their email and phone, as given.
func payeeContact(p payouts.Payee) string {
	var parts []string
	if p.Email != "" {
		parts = append(parts, p.Email)
	}
	if p.PhoneNumber != "" {
		parts = append(parts, payeePhone(p))
	}
	return strings.Join(parts, " · ")
}

// payeePhone is a payee's phone number as people read it.
func payeePhone(p payouts.Payee) string {
	return components.Phone(payouts.Phone{CountryCode: p.CountryCode, PhoneNumber: p.PhoneNumber})
}

func deliveryLabel(m payouts.DeliveryMethod) string {
	switch m {
	case payouts.DeliveryEmail:
		return "By email"
	case payouts.DeliverySMS:
		return "By text message"
	}
	return "Handed over by the app"
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// stepList names a flow's steps in words.
func stepList(steps []string) string {
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = StepName(s)
	}
	return strings.Join(names, ", ")
}

// progressText is "2 of 3": the steps completed of the flow's steps.
func progressText(f payouts.Flow) string {
	return components.Count(len(f.CompletedSteps)) + " of " + components.Count(len(f.Steps))
}

func stepDone(f payouts.Flow, step string) bool { return slices.Contains(f.CompletedSteps, step) }

// rowNumbers names rows of a file by number, runs as ranges: "Row 4", "Rows 1–2 and 4".
func rowNumbers(rows []int) string {
	var runs []string
	for i := 0; i < len(rows); {
		j := i
		for j+1 < len(rows) && rows[j+1] == rows[j]+1 {
			j++
		}
		run := strconv.Itoa(rows[i])
		if j > i {
			run += "–" + strconv.Itoa(rows[j])
		}
		runs = append(runs, run)
		i = j + 1
	}
	if len(rows) == 1 {
		return "Row " + runs[0]
	}
	if len(runs) == 1 {
		return "Rows " + runs[0]
	}
	return "Rows " + strings.Join(runs[:len(runs)-1], ", ") + " and " + runs[len(runs)-1]
}

// FailureReason is why payout t failed, as an operator reads it: the service's reason, or that it
// gave none (the public API's transfers have no failure_reason), never a blank.
func FailureReason(t payouts.Transfer) string {
	if t.FailureReason == "" {
		return "the service gave no reason"
	}
	return t.FailureReason
}
