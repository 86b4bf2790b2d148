package pages

import "github.com/disburse/disburse/payouts"

// The names the transfers pages give, for the CSV export to use the same words.

// TransferLabel says what a transfer did, as the transfers list says it ("App to user").
func TransferLabel(t payouts.Transfer) string { return transferTypeLabel(t) }

// TransferAmount is how much a transfer moved, without the API's sign.
func TransferAmount(t payouts.Transfer) payouts.Money { return transferAmount(t) }

// TransferStatusLabel names where a transfer stands. A payout link's reservation fails only
// when the link is canceled, so it reads as canceled, not as a failed transfer.
func TransferStatusLabel(t payouts.Transfer) string {
	if t.Status == payouts.TransferFailed && t.HoldsForLink() {
		return "Canceled"
	}
	return TransferStatusName(t.Status)
}
