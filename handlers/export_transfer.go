package handlers

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
)

// exportTransfers streams every transfer of the list's filter as CSV.
func (h *Handlers) exportTransfers(c *fiber.Ctx) error {
	return exportWithPayees(h, c, "transfers", filterOf(h.transferFilterOf), h.allTransfers,
		func(t payouts.Transfer) *string { return t.UserID }, transferCSVHeader, transferCSVRecord)
}

// transactionVoided is a transaction's status once its reservation was released.
const transactionVoided = "voided"

var transferCSVHeader = []string{"id", "created_utc", "completed_utc", "type", "direction", "amount", "fee",
	"payee_name", "payee_email", "payout_method", "status", "user_id", "payout_link_id", "failure_reason", "metadata"}

// transferCSVRecord is a transfer as a row of the export, in the transfers page's words: the
// type as the page names it, the amount without the API's sign and the direction apart.
func transferCSVRecord(t payouts.Transfer, p payee) []string {
	var method string
	if t.Type == payouts.TransferPayout {
		method = t.ExternalData.Platform.Label()
	}
	return []string{csvText(t.ID), csvTime(t.Created.Time), csvCompleted(t), csvText(pages.TransferLabel(t)),
		transferDirection(t), pages.TransferAmount(t).Decimal(), transferFee(t).Decimal(), csvText(p.name), csvText(p.email),
		csvText(method), pages.TransferStatusLabel(t), csvText(deref(t.UserID)), csvText(deref(t.PayoutLinkID)),
		csvText(t.FailureReason), csvMetadata(t.Metadata)}
}

// transferDirection says which way the money went, as the app's books see it: in when it came
// to the app (a deposit, a user paying the app back), out when it went to a user or a payee.
func transferDirection(t payouts.Transfer) string {
	switch {
	case t.Type == payouts.TransferRefill:
		return "in"
	case t.Type == payouts.TransferBalance && t.PayoutLinkID == nil && t.Amount > 0:
		return "in"
	}
	return "out"
}

// transferFee is what the transfer's fee lines took or hold: a voided fee (a failed payout's)
// took nothing.
func transferFee(t payouts.Transfer) payouts.Money {
	var fee payouts.Money
	for _, tx := range t.Transactions {
		if tx.Type == payouts.TransactionFee && tx.Status != transactionVoided {
			fee += tx.Amount
		}
	}
	return fee
}

// csvCompleted is when a transfer completed: a payout when its rail settled, as its status
// history says; other transfers complete as they are made.
func csvCompleted(t payouts.Transfer) string {
	if t.Status != payouts.TransferCompleted {
		return ""
	}
	if t.Type != payouts.TransferPayout {
		return csvTime(t.Created.Time)
	}
	for _, change := range t.StatusHistory {
		if change.Status == payouts.TransferCompleted {
			return csvTime(change.At.Time)
		}
	}
	return ""
}

// exportTransactions streams every transaction of the list's filter as CSV.
func (h *Handlers) exportTransactions(c *fiber.Ctx) error {
	return exportWithPayees(h, c, "transactions", filterOf(h.transactionFilterOf), h.allTransactions,
		func(t payouts.Transaction) *string { return t.UserID }, transactionCSVHeader, transactionCSVRecord)
}

var transactionCSVHeader = []string{"id", "created_utc", "type", "status", "transfer_id", "user_id", "payee_name",
	"payee_email", "source_name", "destination_name", "amount", "metadata"}

func transactionCSVRecord(t payouts.Transaction, p payee) []string {
	return []string{strconv.FormatInt(t.ID, 10), csvTime(t.Created.Time), csvText(string(t.Type)), csvText(t.Status),
		csvText(t.TransferID), csvText(deref(t.UserID)), csvText(p.name), csvText(p.email), csvText(t.SourceName),
		csvText(t.DestinationName), t.Amount.Decimal(), csvMetadata(t.Metadata)}
}
