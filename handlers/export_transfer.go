package handlers

import (
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
)

// exportTransfers streams every transfer of the list's filter as CSV.
func (h *Handlers) exportTransfers(c *fiber.Ctx) error {
	walletKnown, err := h.offers(c.UserContext(), payouts.ExtSummaries)
	if err != nil {
		return err
	}
	filter, _ := h.transferFilterOf(c)
	return exportWithPayees(h, c, "transfers", filterOf(h.transferFilterOf), h.allTransfers,
		func(t payouts.Transfer) *string { return t.UserID }, transferCSVHeader,
		func(t payouts.Transfer, p payee, loc *time.Location) []string {
			return transferCSVRecord(t, p, walletKnown, filter.Range, loc)
		})
}

// transactionVoided is a transaction's status once its reservation was released.
const transactionVoided = "voided"

// csvSharedHeader are the first columns of both exports, the same words for the same things:
// what the row did and where it stands in the list's words, which way its money goes for the
// app's wallet (in or out; empty for a ledger line between other accounts), the amount unsigned,
// and what its lines posted in the export's date range moved into (money_in) and out of
// (money_out) the app's wallet, and the two netted (signed_amount): the figures the list's
// summary sums, so a spreadsheet's sums of the columns are the page's In, Out and net.
var csvSharedHeader = []string{"id", "created", "type", "status", "direction", "amount", "signed_amount",
	"money_in", "money_out", "user_id", "payee_name", "payee_email"}

var transferCSVHeader = slices.Concat(csvSharedHeader, []string{"fee", "completed", "payout_method",
	"payout_link_id", "failure_reason", "metadata"})

// transferCSVRecord is a transfer as a row of the export, in the transfers page's words: the
// type as the page names it, the amount without the API's sign and the direction apart.
// walletKnown says the backend tells which way each line moves the app's wallet (our
// extension); without it signed_amount is left empty rather than guessed. Times are in loc.
func transferCSVRecord(t payouts.Transfer, p payee, walletKnown bool, rng payouts.Range, loc *time.Location) []string {
	var method string
	if t.Type == payouts.TransferPayout {
		method = t.ExternalData.Platform.Label()
	}
	var m walletMoney
	for _, tx := range t.Transactions {
		m.add(tx, rng)
	}
	return slices.Concat(csvShared(csvText(t.ID), csvTime(t.Created.Time, loc), pages.TransferLabel(t), pages.TransferStatusLabel(t),
		transferDirection(t), pages.TransferAmount(t), m.cells(walletKnown), t.UserID, p),
		[]string{transferFee(t).Decimal(), csvCompleted(t, loc), csvText(method), csvText(deref(t.PayoutLinkID)),
			csvText(t.FailureReason), csvMetadata(t.Metadata)})
}

// csvShared is the cells of csvSharedHeader; money is signed_amount, money_in and money_out.
func csvShared(id, created string, typ, status, direction string, amount payouts.Money, money []string,
	userID *string, p payee) []string {
	return slices.Concat([]string{id, created, csvText(typ), csvText(status), direction, amount.Decimal()}, money,
		[]string{csvText(deref(userID)), csvText(p.name), csvText(p.email)})
}

// walletMoney is what ledger lines moved into and out of the app's wallet.
type walletMoney struct{ in, out payouts.Money }

// add counts a line that moved the app's wallet: its amount once posted, by its direction, when
// it was posted within rng (a range's money is what lines posted in it moved, as the summaries
// and the statement count it: internal/store/summary.go); nothing while pending or once voided,
// nor for a line between other accounts.
func (m *walletMoney) add(t payouts.Transaction, rng payouts.Range) {
	if t.Status != transactionPosted {
		return
	}
	posted := t.Created.Time
	if t.Posted != nil {
		posted = t.Posted.Time
	}
	if (!rng.CreatedFrom.IsZero() && posted.Before(rng.CreatedFrom)) || (!rng.CreatedTo.IsZero() && !posted.Before(rng.CreatedTo)) {
		return
	}
	switch t.Direction {
	case "in":
		m.in += t.Amount
	case "out":
		m.out += t.Amount
	}
}

// cells are signed_amount, money_in and money_out; empty without walletKnown (the public API,
// which does not say which lines are the app wallet's): no sum is guessed.
func (m walletMoney) cells(walletKnown bool) []string {
	if !walletKnown {
		return []string{"", "", ""}
	}
	return []string{(m.in - m.out).Decimal(), m.in.Decimal(), m.out.Decimal()}
}

// transactionPosted is a transaction's status once it moved money for good.
const transactionPosted = "posted"

// transferDirection says which way the money went, as the app's books see it: in when it came
// to the app (a deposit, a user paying the app back), out when it went to a user or a payee.
func transferDirection(t payouts.Transfer) string {
	switch {
	case t.Type == payouts.TransferRefill:
		return "in"
	case t.Type == payouts.TransferBalance && !t.HoldsForLink() && t.Amount > 0:
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
// history says; other transfers complete as they are made. In loc.
func csvCompleted(t payouts.Transfer, loc *time.Location) string {
	if t.Status != payouts.TransferCompleted {
		return ""
	}
	if t.Type != payouts.TransferPayout {
		return csvTime(t.Created.Time, loc)
	}
	for _, change := range t.StatusHistory {
		if change.Status == payouts.TransferCompleted {
			return csvTime(change.At.Time, loc)
		}
	}
	return ""
}

// exportTransactions streams every transaction of the list's filter as CSV.
func (h *Handlers) exportTransactions(c *fiber.Ctx) error {
	walletKnown, err := h.offers(c.UserContext(), payouts.ExtSummaries)
	if err != nil {
		return err
	}
	statusKnown, err := h.transactionStatusKnown(c)
	if err != nil {
		return err
	}
	filterOfStatus := func(c *fiber.Ctx) (payouts.TransactionFilter, listFilter) {
		return h.transactionFilterOf(c, statusKnown)
	}
	filter, _ := filterOfStatus(c)
	// The public API names no user on a transaction; filtered by a user, its lines are that
	// user's transfers' (the filter's meaning on both backends), so each row names the user.
	userOf := func(t payouts.Transaction) *string {
		if t.UserID == nil && filter.UserID != "" {
			return &filter.UserID
		}
		return t.UserID
	}
	return exportWithPayees(h, c, "transactions", filterOf(filterOfStatus), h.allTransactions,
		userOf, transactionCSVHeader,
		func(t payouts.Transaction, p payee, loc *time.Location) []string {
			t.UserID = userOf(t)
			return transactionCSVRecord(t, p, walletKnown, filter.Range, loc)
		})
}

var transactionCSVHeader = slices.Concat(csvSharedHeader, []string{"transfer_id", "source_name", "destination_name",
	"metadata"})

// transactionCSVRecord is a ledger line as a row of the export, in the transactions page's
// words; without walletKnown (the public API) its direction and signed_amount are unknown and
// left empty.
func transactionCSVRecord(t payouts.Transaction, p payee, walletKnown bool, rng payouts.Range, loc *time.Location) []string {
	var m walletMoney
	m.add(t, rng)
	return append(csvShared(strconv.FormatInt(t.ID, 10), csvTime(t.Created.Time, loc), pages.TransactionTypeName(t.Type),
		pages.TransactionStatusName(t.Status), t.Direction, t.Amount, m.cells(walletKnown), t.UserID, p),
		csvText(t.TransferID), csvText(t.SourceName), csvText(t.DestinationName), csvMetadata(t.Metadata))
}
