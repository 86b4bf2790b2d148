package handlers

import (
	"context"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// The quick periods of the statement's form, sent by its buttons as ?period=.
const (
	periodThisMonth = "this-month"
	periodLastMonth = "last-month"
)

// statementFields are the query parameters of the statement page and its export: the payee
// picker (empty: the app's wallet), the first and last days, the browser's zone, a quick period,
// and the day whose closing balance to show.
var statementFields = []string{"user", "user_id", "from", "to", "tz", "period", "as_of"}

// statementQuery is what the statement page and its export read from the query.
type statementQuery struct {
	form components.Form // as typed, with a message on each field that could not be used
	req  payouts.StatementRequest
	loc  *time.Location
	// asOf is the end of the day whose balance is asked for; zero when none is.
	asOf time.Time
}

// statementQueryOf reads a statement's query. A quick period fills the days; no days at all is
// this month. Days are read in the operator's zone (zoneOf), "to" included.
func (h *Handlers) statementQueryOf(c *fiber.Ctx) statementQuery {
	q := statementQuery{form: components.Form{Values: map[string]string{}}}
	for _, name := range statementFields {
		if v := strings.TrimSpace(c.Query(name)); v != "" {
			q.form.Values[name] = v
		}
	}
	q.loc = h.zoneOf(c, &q.form)
	period := q.form.Value("period")
	delete(q.form.Values, "period")
	if q.form.Value("from") == "" && q.form.Value("to") == "" && period == "" {
		period = periodThisMonth
	}
	if first, last, ok := quickPeriod(period, h.now().In(q.loc)); ok {
		q.form.Values["from"], q.form.Values["to"] = first.Format(time.DateOnly), last.Format(time.DateOnly)
	}
	q.req.UserID = h.userOfFilter(c, &q.form)
	q.req.From, q.req.To = dayRangeOf(&q.form, q.loc)
	for field, day := range map[string]time.Time{"from": q.req.From, "to": q.req.To} {
		if day.IsZero() && q.form.Error(field) == "" {
			addProblem(&q.form, field, "choose a day")
		}
	}
	if v := q.form.Value("as_of"); v != "" {
		day, err := time.ParseInLocation(time.DateOnly, v, q.loc)
		if err != nil {
			addProblem(&q.form, "as_of", "enter a date like 2026-03-31")
		} else {
			q.asOf = day.AddDate(0, 0, 1)
		}
	}
	return q
}

// quickPeriod is the first and last days of a quick period, in now's zone.
func quickPeriod(period string, now time.Time) (first, last time.Time, ok bool) {
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
	switch period {
	case periodThisMonth:
	case periodLastMonth:
		month = month.AddDate(0, -1, 0)
	default:
		return time.Time{}, time.Time{}, false
	}
	return month, month.AddDate(0, 1, -1), true
}

// statement shows a wallet, the app's or a payee's, over a period: opening balance, every
// posted movement with the balance after it, closing balance, and whether the closing balance
// agrees with the wallet's; and, when asked, the balance at the end of one day. Only our
// service has statements: on the public API the page says so.
func (h *Handlers) statement(c *fiber.Ctx) error {
	if done, err := h.unavailable(c, payouts.ExtStatements, "Statement", "Statements"); done || err != nil {
		return err
	}
	q := h.statementQueryOf(c)
	p := pages.StatementProps{Filter: q.form, Payee: statementPicker(q.form)}
	status := fiber.StatusOK
	if len(q.form.Errors) > 0 {
		p.Problem, status = "Correct the choices above to see the statement.", fiber.StatusUnprocessableEntity
	} else {
		sheet, err := h.statementSheet(c.UserContext(), q)
		if formFailed(err, &p.Filter) {
			p.Payee = statementPicker(p.Filter)
			p.Problem, status = "Correct the choices above to see the statement.", fiber.StatusUnprocessableEntity
		} else if err != nil {
			return err
		}
		p.Sheet = sheet
		if sheet != nil && h.can(c, web.PermExport) {
			p.ExportURL = queryURL("/statement/export", filterQuery(p.Filter))
		}
	}
	view := h.web.View(c)
	return h.web.Render(c, status, web.Page{Title: "Statement", Content: pages.Statement(view, p), Fragment: pages.StatementBody(view, p)})
}

// statementPicker is the payee picker of the statement's form: a payee's wallet, or the app's
// when none is chosen.
func statementPicker(form components.Form) components.PayeePickerProps {
	p := payeePicker(form, "statement-user", "Payee", "Leave empty for the app's wallet.")
	p.SubmitOnChoose = true
	return p
}

// statementSheet reads the statement of q and, when asked, the balance at the end of its day,
// and checks the closing balance against the wallet's own when the period reaches the present.
func (h *Handlers) statementSheet(ctx context.Context, q statementQuery) (*pages.StatementSheet, error) {
	st, err := h.payouts.Statement(ctx, q.req)
	if err != nil {
		return nil, err
	}
	sheet := &pages.StatementSheet{Payee: components.PayeeProps{ID: q.req.UserID}, First: q.form.Value("from"),
		Last: q.form.Value("to"), Zone: q.loc.String(), Opening: st.OpeningBalance, Closing: st.ClosingBalance,
		MoneyIn: st.MoneyIn, MoneyOut: st.MoneyOut}
	sheet.Payee.Name = q.form.Value("user")
	userIDs := make([]*string, len(st.Movements))
	for i, m := range st.Movements {
		userIDs[i] = m.UserID
	}
	people, err := h.peopleOf(ctx, userIDs...)
	if err != nil {
		return nil, err
	}
	for _, m := range st.Movements {
		line := pages.StatementMovement{Posted: m.Posted.Time, Type: pages.TransactionTypeName(m.Type),
			Counterparty: m.Counterparty, TransferID: m.TransferID, Amount: m.Amount, Balance: m.Balance}
		if m.UserID != nil && *m.UserID != q.req.UserID {
			u := people[*m.UserID]
			line.Payee = components.PayeeProps{ID: *m.UserID, Name: u.Name(), Email: u.Email}
		}
		sheet.Movements = append(sheet.Movements, line)
	}
	sheet.ByType = typeTotals(st.ByType, transactionTypeName)
	sheet.Sums = st.OpeningBalance+st.MoneyIn-st.MoneyOut == st.ClosingBalance && lastBalance(st) == st.ClosingBalance
	// A period that reaches the present closes at the wallet's balance now, which the service
	// reads from the wallet itself rather than from the statement's lines.
	if !q.req.To.Before(h.now()) {
		balance, known, err := h.walletBalance(ctx, q.req.UserID)
		if err != nil {
			return nil, err
		}
		if known {
			sheet.Now = &pages.WalletNow{Balance: balance}
		}
	}
	if !q.asOf.IsZero() {
		// A balance as of an instant is the closing balance of any period ending then; the
		// shortest one holds the fewest lines, so a busy day never passes the statement's bound.
		r := payouts.StatementRequest{UserID: q.req.UserID, From: q.asOf.Add(-time.Microsecond), To: q.asOf}
		at, err := h.payouts.Statement(ctx, r)
		if err != nil {
			return nil, err
		}
		sheet.AsOf = &pages.BalanceAsOf{Day: q.form.Value("as_of"), Balance: at.ClosingBalance}
	}
	return sheet, nil
}

// lastBalance is the balance after a statement's last line, or its opening when it has none.
func lastBalance(st *payouts.Statement) payouts.Money {
	if n := len(st.Movements); n > 0 {
		return st.Movements[n-1].Balance
	}
	return st.OpeningBalance
}

// walletBalance is the posted balance of the app's wallet, or the user's, as the service reads
// it now; known is false when the dashboard does not know which app it serves.
func (h *Handlers) walletBalance(ctx context.Context, userID string) (_ payouts.Money, known bool, _ error) {
	if userID != "" {
		u, err := h.getUser(ctx, userID)
		if err != nil {
			return 0, false, err
		}
		return u.Wallet.Amount, true, nil
	}
	if h.appID == "" {
		return 0, false, nil
	}
	app, err := h.payouts.GetApp(ctx, h.appID)
	if err != nil {
		return 0, false, err
	}
	return app.Wallet.Amount, true, nil
}

// exportStatement streams the statement of the page's choices as CSV: an opening row, a row
// per movement with its signed amount and the balance after it, and a closing row, so that a
// spreadsheet's sum of signed_amount is the closing balance less the opening. The export is
// recorded in the audit log, on the payee or the app whose wallet it is.
func (h *Handlers) exportStatement(c *fiber.Ctx) error {
	if done, err := h.unavailable(c, payouts.ExtStatements, "Statement", "Statements"); done || err != nil {
		return err
	}
	q := h.statementQueryOf(c)
	if len(q.form.Errors) > 0 {
		return fiber.NewError(fiber.StatusBadRequest, formProblems(q.form))
	}
	st, err := h.payouts.Statement(c.UserContext(), q.req)
	if err != nil {
		return err
	}
	objectType, objectID := "app", h.appID
	if q.req.UserID != "" {
		objectType, objectID = "user", q.req.UserID
	}
	read, err := h.userReader(c.UserContext(), true)
	if err != nil {
		return err
	}
	h.audit(c, "statement.export", objectType, objectID, "CSV of the statement from "+q.form.Value("from")+" to "+
		q.form.Value("to")+" ("+q.loc.String()+")")
	payees := newPayeeBook(read)
	return exportCSV(c, h.web, exportName("statement", h.now(), q.loc), q.loc, statementCSVHeader,
		func(context.Context) iter.Seq2[statementRow, error] { return statementRows(st) },
		func(ctx context.Context, r statementRow) ([]string, error) {
			p, err := payees.lookup(ctx, r.userID)
			return statementCSVRecord(r, p, q.loc), err
		})
}

// statementCSVHeader is the page's columns, in the words of the transfers and transactions
// exports for the same things (type, direction, amount, signed_amount, the payee's columns).
var statementCSVHeader = []string{"row", "posted", "type", "description", "direction", "amount", "signed_amount",
	"balance", "user_id", "payee_name", "payee_email", "transfer_id", "transaction_id"}

// statementRow is a row of the statement's export: its opening, a movement, or its closing.
type statementRow struct {
	kind   string // "opening", "movement", "closing"
	at     time.Time
	line   payouts.StatementLine // a movement's
	userID *string
	// balance is the balance at the row: the opening, after the movement, or the closing.
	balance payouts.Money
}

// statementRows are a statement's rows in the order of the page.
func statementRows(st *payouts.Statement) iter.Seq2[statementRow, error] {
	return func(yield func(statementRow, error) bool) {
		if !yield(statementRow{kind: "opening", at: st.From.Time, userID: st.UserID, balance: st.OpeningBalance}, nil) {
			return
		}
		for _, m := range st.Movements {
			if !yield(statementRow{kind: "movement", at: m.Posted.Time, line: m, userID: m.UserID, balance: m.Balance}, nil) {
				return
			}
		}
		yield(statementRow{kind: "closing", at: st.To.Time, userID: st.UserID, balance: st.ClosingBalance}, nil)
	}
}

// statementCSVRecord is a row of the export in the page's words. The opening and closing rows
// carry only their instant and balance; a movement's amount is written unsigned beside its
// direction and signed beside that.
func statementCSVRecord(r statementRow, p payee, loc *time.Location) []string {
	if r.kind != "movement" {
		description := "Opening balance"
		if r.kind == "closing" {
			description = "Closing balance"
		}
		return []string{r.kind, csvTime(r.at, loc), "", description, "", "", "", r.balance.Decimal(), csvText(deref(r.userID)),
			csvText(p.name), csvText(p.email), "", ""}
	}
	m := r.line
	direction, unsigned := "in", m.Amount
	if m.Amount < 0 {
		direction, unsigned = "out", -m.Amount
	}
	return []string{r.kind, csvTime(r.at, loc), csvText(pages.TransactionTypeName(m.Type)), csvText(m.Counterparty), direction,
		unsigned.Decimal(), m.Amount.Decimal(), r.balance.Decimal(), csvText(deref(m.UserID)), csvText(p.name), csvText(p.email),
		csvText(m.TransferID), strconv.FormatInt(m.TransactionID, 10)}
}
