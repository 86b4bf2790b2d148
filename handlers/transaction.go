package handlers

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

var (
	transactionTypes = []payouts.TransactionType{payouts.TransactionPayout, payouts.TransactionBalance,
		payouts.TransactionRefill, payouts.TransactionFee, payouts.TransactionPayment, payouts.TransactionSurrogate}
	transactionStatuses = []string{payouts.TransactionPosted, payouts.TransactionPending, payouts.TransactionVoided}
)

// transactionFilterOf reads the filter of the transactions list and of its export, in the
// transfers page's words (transferFilterOf). A line's status is ours: statusKnown says the backend
// reports and filters it; without it a status asked for is dropped, not applied to rows that
// carry none.
func (h *Handlers) transactionFilterOf(c *fiber.Ctx, statusKnown bool) (payouts.TransactionFilter, listFilter) {
	lf := h.listFilterOf(c, "type", "status")
	f := payouts.TransactionFilter{UserID: lf.userID, Type: choiceOf(&lf, "type", payouts.TransactionType.Valid), Range: lf.rng}
	if statusKnown {
		f.Status = choiceOf(&lf, "status", payouts.ValidTransactionStatus)
	} else {
		delete(lf.form.Values, "status") // the page says the backend does not report a line's status
	}
	return f, lf
}

// transactionStatusKnown reports whether the backend reports and filters a line's status (our
// extension).
func (h *Handlers) transactionStatusKnown(c *fiber.Ctx) (bool, error) {
	return h.offers(c.UserContext(), payouts.ExtTransactionFilters)
}

// transactions lists the ledger lines, newest first, narrowed by the filter form, with the
// count and totals of the whole filtered set.
func (h *Handlers) transactions(c *fiber.Ctx) error {
	statusKnown, err := h.transactionStatusKnown(c)
	if err != nil {
		return err
	}
	filter, lf := h.transactionFilterOf(c, statusKnown)
	p := pages.TransactionsProps{Types: options("Any type", transactionTypes, pages.TransactionTypeName)}
	if statusKnown {
		p.Statuses = options("Any status", transactionStatuses, pages.TransactionStatusName)
	}
	status, err := h.reconcile(c, "/transactions", "#transactions-body", lf, &p.List, func() (int, bool, error) {
		ctx := c.UserContext()
		if !statusKnown {
			p.List.Notes = append(p.List.Notes, notOffered("Filtering transactions by status"))
		}
		source, keep, err := h.transactionSource(ctx, filter)
		if err != nil {
			return 0, false, err
		}
		noun := "transactions"
		if filter.UserID != "" {
			noun = "transactions of this user's transfers"
		}
		rows, summarized, err := reconcileRows(h, c, lf, &p.List, reconciled[payouts.Transaction]{
			path: "/transactions", target: "#transactions-body", noun: noun, by: "by user, type, date or amount",
			source: source, keep: keep, id: func(t payouts.Transaction) string { return strconv.FormatInt(t.ID, 10) },
			userOf: func(t payouts.Transaction) *string { return t.UserID },
			list: func() (*payouts.List[payouts.Transaction], error) {
				return h.payouts.ListTransactions(ctx, lf.page, filter)
			},
			summarize: func() (*payouts.Summary, error) { return h.payouts.SummarizeTransactions(ctx, filter) },
			typeName:  transactionTypeName,
		})
		p.Transactions, p.Payees = rows.rows, rows.payees
		return len(rows.rows), summarized, err
	})
	if err != nil {
		return err
	}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Transactions", Content: pages.Transactions(view, p),
		Fragment: pages.TransactionsBody(view, p)})
}

// transactionTypeName is the dashboard's name for a ledger line's type given as text, as the
// transactions summary and the statement break their figures down.
func transactionTypeName(t string) string {
	return pages.TransactionTypeName(payouts.TransactionType(t))
}

// transaction shows one ledger line.
func (h *Handlers) transaction(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id < 1 {
		return fiber.NewError(fiber.StatusNotFound, "There is no such transaction.")
	}
	t, err := h.payouts.GetTransaction(c.UserContext(), id)
	if err != nil {
		return err
	}
	people, err := h.peopleOf(c.UserContext(), t.UserID)
	if err != nil {
		return err
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Transaction " + c.Params("id"),
		Content: pages.TransactionDetail(h.web.View(c), pages.TransactionDetailProps{Transaction: *t, People: people})})
}
