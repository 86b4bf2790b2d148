package handlers

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// The dashboard also runs against the public Dots API (--api-url), which has none of our
// extensions: it answers 404 to our routes and ignores our query parameters, so a filter sent
// to it would come back as the whole list, silently. Each page therefore asks which extensions
// the service offers (the client asks once) and, for a filter the service lacks, either filters
// the newest rows here and says over how many, or leaves the part out with a one-line note.

// offers reports whether the Payout Service offers the extension.
func (h *Handlers) offers(ctx context.Context, e payouts.Extension) (bool, error) {
	x, err := h.payouts.Extensions(ctx)
	if err != nil {
		return false, err
	}
	return x.Has(e), nil
}

// appWallet is the app's wallet as a page may show it: our service sends the whole wallet; the
// public API sends only metrics.wallet_balance, the balance as a decimal, so what is available
// and what is reserved are unknown (whole is false).
func (h *Handlers) appWallet(ctx context.Context, app *payouts.App) (w payouts.Wallet, whole bool, err error) {
	x, err := h.payouts.Extensions(ctx)
	if err != nil || x.Ours() {
		return app.Wallet, err == nil, err
	}
	balance, err := payouts.ParseDollars(app.Metrics.WalletBalance)
	if err != nil {
		return w, false, fmt.Errorf("the app's metrics.wallet_balance %q: %w", app.Metrics.WalletBalance, err)
	}
	return payouts.Wallet{Amount: balance}, false, nil
}

// walletPartial is the line a page shows beside a balance read from metrics.wallet_balance.
const walletPartial = "This API reports the app wallet's balance only, not how much of it is available or reserved."

// scanRows is how many of a list's newest rows the dashboard reads, at most, to filter them
// itself when the service cannot: five pages of the API's largest.
const scanRows = 5 * payouts.MaxLimit

// scanned is what a filter done here found among the newest rows of a list.
type scanned[T any] struct {
	rows []T // the first matches, newest first, at most as many as asked for
	read int // rows of the list read
	// whole is true when the rows read are the whole list, so no match was missed.
	whole bool
	// paged is true when the reading stopped at the edge of a page whose links go on (scanPage),
	// not at the end of what is read.
	paged bool
}

// scanNewest reads the newest rows of a list (its walk, newest first), at most scanRows, and
// keeps the first want that keep accepts: the first page of scanPage, for a list without further
// pages, so what lies beyond it was not searched.
func scanNewest[T any](rows iter.Seq2[T, error], keep func(T) bool, want int) (scanned[T], error) {
	s, _, err := scanPage(rows, keep, payouts.Page{Limit: want}, nil)
	s.paged = false
	return s, err
}

// scanPage reads a page of a list filtered here: among the newest rows, at most scanRows, the
// page.Limit matches after the row page.StartingAfter names (from the newest without it), or the
// page.Limit matches just before the row page.EndingBefore names. more reports that matches lie
// beyond the page in the direction it was read, for its links. Every page reads from the newest
// row, so each costs at most scanRows rows and its address is a bookmark. id is called only with
// a cursor.
func scanPage[T any](rows iter.Seq2[T, error], keep func(T) bool, page payouts.Page, id func(T) string) (s scanned[T], more bool, err error) {
	s.whole = true
	backward := page.EndingBefore != ""
	past := page.StartingAfter == "" // past the cursor, reading forward
	for row, err := range rows {
		if err != nil {
			return s, false, err
		}
		if s.read == scanRows {
			s.whole = false
			break
		}
		s.read++
		switch {
		case backward && id(row) == page.EndingBefore:
			s.whole, s.paged = false, true
		case backward:
			if keep(row) {
				s.rows = append(s.rows, row)
			}
			continue
		case !past:
			past = id(row) == page.StartingAfter
			continue
		case !keep(row):
			continue
		case len(s.rows) < page.Limit:
			s.rows = append(s.rows, row)
			continue
		default:
			s.whole, s.paged, more = false, true, true
		}
		break
	}
	if backward && len(s.rows) > page.Limit {
		s.rows, more = s.rows[len(s.rows)-page.Limit:], true
	}
	return s, more, nil
}

// note says truthfully what a filter done here looked through: "Filtered here over the newest
// 500 transfers (this API cannot filter them by type)."
func (s scanned[T]) note(noun, by string) string {
	over := "all " + strconv.Itoa(s.read) + " " + noun
	switch {
	case s.paged:
		over = "the newest " + strconv.Itoa(s.read) + " " + noun + ", up to this page"
	case !s.whole:
		over = "the newest " + strconv.Itoa(s.read) + " " + noun + "; older ones were not searched"
	}
	return "Filtered here over " + over + " (this API cannot filter them " + by + ")."
}

// notOffered is the note of a part of a page only our Payout Service serves.
func notOffered(what string) string {
	return what + ": not available on this API (only disburse's Payout Service offers it)."
}

// inRange reports whether a row created at created and moving amount falls in r: created in
// [from, to), the unsigned amount within the bounds.
func inRange(r payouts.Range, created time.Time, amount payouts.Money) bool {
	if amount < 0 {
		amount = -amount
	}
	return (r.CreatedFrom.IsZero() || !created.Before(r.CreatedFrom)) &&
		(r.CreatedTo.IsZero() || created.Before(r.CreatedTo)) &&
		(r.AmountMin == 0 || amount >= r.AmountMin) && (r.AmountMax == 0 || amount <= r.AmountMax)
}

// transferMatches is the transfers list's filter beyond the user, done here.
func transferMatches(f payouts.TransferFilter) func(payouts.Transfer) bool {
	return func(t payouts.Transfer) bool {
		return (f.Type == "" || t.Type == f.Type) && (f.Status == "" || t.Status == f.Status) &&
			inRange(f.Range, t.Created.Time, t.Amount)
	}
}

// linkMatches is the payout links list's filter, done here, its search read as the service
// reads it.
func linkMatches(f payouts.PayoutLinkFilter) func(payouts.PayoutLink) bool {
	terms := payouts.SearchTerms(f.Search)
	return func(l payouts.PayoutLink) bool {
		return (f.Status == "" || l.Status == f.Status) && (f.Amount == 0 || l.Amount == f.Amount) &&
			payouts.MatchesSearch(payouts.PayoutLinkSearchText(l.Payee, l.Memo), terms)
	}
}

// listPage reads a page of a list under filter f: from the service when it offers the
// extension that applies f, or when f asks no more than public (the part of f the public API
// applies). Otherwise it is the first page.Limit rows that keep accepts among the newest rows
// of public, with the note that says over how many: a list without further pages.
func listPage[F comparable, T any](ctx context.Context, h *Handlers, ext payouts.Extension, page payouts.Page, f, public F,
	list func(context.Context, payouts.Page, F) (*payouts.List[T], error), all func(context.Context, F) iter.Seq2[T, error],
	keep func(T) bool, noun, by string) (*payouts.List[T], string, error) {
	l, note, _, err := listPageSearched(ctx, h, ext, page, f, public, list, all, keep, noun, by)
	return l, note, err
}

// listPageSearched is listPage that also says, for an empty state, which rows were searched when
// not all were: "the newest 500 transfers"; empty when the whole list was.
func listPageSearched[F comparable, T any](ctx context.Context, h *Handlers, ext payouts.Extension, page payouts.Page, f, public F,
	list func(context.Context, payouts.Page, F) (*payouts.List[T], error), all func(context.Context, F) iter.Seq2[T, error],
	keep func(T) bool, noun, by string) (_ *payouts.List[T], note, searched string, _ error) {
	offered, err := h.offers(ctx, ext)
	if err != nil {
		return nil, "", "", err
	}
	if offered || f == public {
		l, err := list(ctx, page, f)
		return l, "", "", err
	}
	s, err := scanNewest(all(ctx, public), keep, page.Limit)
	if err != nil {
		return nil, "", "", err
	}
	if !s.whole {
		searched = "the newest " + payouts.Grouped(int64(s.read)) + " " + noun
	}
	return &payouts.List[T]{Data: s.rows}, s.note(noun, by), searched, nil
}

// findUsers reads a page of the users filter matches: from the service when it searches users,
// else from the payee index (the first page.Limit matches, a list without further pages, and the
// note that says what was searched). The public API does not report a user's status, so a status
// asked of it is left out with a note.
func (h *Handlers) findUsers(ctx context.Context, page payouts.Page, filter payouts.UserFilter) (*payouts.List[payouts.User], string, error) {
	use, err := h.usesPayeeIndex(ctx)
	if err != nil || !use || filter == (payouts.UserFilter{}) {
		if err != nil {
			return nil, "", err
		}
		l, err := h.payouts.ListUsers(ctx, page, filter)
		return l, "", err
	}
	var notes []string
	if filter.Status != "" {
		notes = append(notes, notOffered("Filtering users by status")+" It does not report a user's status.")
		if filter.Search == "" {
			l, err := h.payouts.ListUsers(ctx, page, payouts.UserFilter{})
			return l, notes[0], err
		}
	}
	m, st, err := h.indexedPayees(ctx, filter.Search, page.Limit)
	if err != nil {
		return nil, "", err
	}
	note := h.indexNote(st)
	if m.Total > len(m.Users) {
		note += " " + payouts.Grouped(int64(m.Total)) + " users match; the first " + payouts.Grouped(int64(len(m.Users))) + " are shown: type more to narrow it."
	}
	return &payouts.List[payouts.User]{Data: m.Users}, strings.Join(append(notes, note), " "), nil
}

// transferSource is the walk of transfers the dashboard filters itself, and how, when the
// service cannot apply f (its type, status or range) itself; nil, nil when it can, or when f
// asks nothing of the kind.
func (h *Handlers) transferSource(ctx context.Context, f payouts.TransferFilter) (iter.Seq2[payouts.Transfer, error], func(payouts.Transfer) bool, error) {
	if f.Type == "" && f.Status == "" && f.Range == (payouts.Range{}) {
		return nil, nil, nil
	}
	if offered, err := h.offers(ctx, payouts.ExtTransferFilters); offered || err != nil {
		return nil, nil, err
	}
	return h.payouts.AllTransfers(ctx, payouts.TransferFilter{UserID: f.UserID}), transferMatches(f), nil
}

// transactionSource is transferSource for transactions: without the service's filters, a
// user's transactions are those of the user's transfers (the public API filters transfers by
// user), and the range is applied here.
func (h *Handlers) transactionSource(ctx context.Context, f payouts.TransactionFilter) (iter.Seq2[payouts.Transaction, error], func(payouts.Transaction) bool, error) {
	if f == (payouts.TransactionFilter{}) {
		return nil, nil, nil
	}
	if offered, err := h.offers(ctx, payouts.ExtTransactionFilters); offered || err != nil {
		return nil, nil, err
	}
	// The status filter is never here: the public API does not report a line's status
	// (transactionFilterOf drops it).
	keep := func(t payouts.Transaction) bool {
		return (f.Type == "" || t.Type == f.Type) && inRange(f.Range, t.Created.Time, t.Amount)
	}
	if f.UserID == "" {
		return h.payouts.AllTransactions(ctx, payouts.TransactionFilter{}), keep, nil
	}
	return func(yield func(payouts.Transaction, error) bool) {
		for t, err := range h.payouts.AllTransfers(ctx, payouts.TransferFilter{UserID: f.UserID}) {
			if err != nil {
				yield(payouts.Transaction{}, err)
				return
			}
			for _, tx := range t.Transactions {
				if !yield(tx, nil) {
					return
				}
			}
		}
	}, keep, nil
}

// allTransfers walks the transfers of f, newest first, for an export, which reads them all: a
// filter the service lacks is applied here, over the whole walk.
func (h *Handlers) allTransfers(ctx context.Context, f payouts.TransferFilter) iter.Seq2[payouts.Transfer, error] {
	return walkOf(ctx, f, h.transferSource, h.payouts.AllTransfers)
}

// allTransactions is allTransfers for transactions.
func (h *Handlers) allTransactions(ctx context.Context, f payouts.TransactionFilter) iter.Seq2[payouts.Transaction, error] {
	return walkOf(ctx, f, h.transactionSource, h.payouts.AllTransactions)
}

// walkOf walks the rows of f: the service's own walk when it applies f, else the source's
// rows that the filter done here keeps.
func walkOf[F, T any](ctx context.Context, f F, source func(context.Context, F) (iter.Seq2[T, error], func(T) bool, error),
	serviceWalk func(context.Context, F) iter.Seq2[T, error]) iter.Seq2[T, error] {
	rows, keep, err := source(ctx, f)
	switch {
	case err != nil:
		return failed[T](err)
	case rows == nil:
		return serviceWalk(ctx, f)
	}
	return keepOnly(rows, keep)
}

// keepOnly is the rows of a walk that keep accepts.
func keepOnly[T any](rows iter.Seq2[T, error], keep func(T) bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for row, err := range rows {
			if err != nil {
				yield(row, err)
				return
			}
			if keep(row) && !yield(row, nil) {
				return
			}
		}
	}
}

// failed is a walk that fails at once.
func failed[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

// findPayoutLinks reads a page of the payout links filter matches (listPage).
func (h *Handlers) findPayoutLinks(ctx context.Context, page payouts.Page, filter payouts.PayoutLinkFilter) (*payouts.List[payouts.PayoutLink], string, error) {
	return listPage(ctx, h, payouts.ExtPayoutLinkFilters, page, filter, payouts.PayoutLinkFilter{}, h.payouts.ListPayoutLinks,
		h.payouts.AllPayoutLinks, linkMatches(filter), "payout links", "by payee, status or amount")
}

// findFlows reads a page of the flows filter matches (listPage).
func (h *Handlers) findFlows(ctx context.Context, page payouts.Page, filter payouts.FlowFilter) (*payouts.List[payouts.Flow], string, error) {
	return listPage(ctx, h, payouts.ExtFlowFilters, page, filter, payouts.FlowFilter{}, h.payouts.ListFlows, h.payouts.AllFlows,
		func(f payouts.Flow) bool { return filter.UserID == "" || deref(f.UserID) == filter.UserID }, "flows", "by user")
}

// findTransfers reads a page of the transfers filter matches (listPage); the public API
// filters them by user only.
func (h *Handlers) findTransfers(ctx context.Context, page payouts.Page, filter payouts.TransferFilter) (*payouts.List[payouts.Transfer], string, error) {
	return listPage(ctx, h, payouts.ExtTransferFilters, page, filter, payouts.TransferFilter{UserID: filter.UserID},
		h.payouts.ListTransfers, h.payouts.AllTransfers, transferMatches(filter), "transfers", "by type, status, date or amount")
}

// lookUpIDs finds the objects text names by id. Without the service's id lookup, only a whole
// id can be found, by asking for it as each kind the operator may read; a short id or the
// beginning of one gets a note instead.
func (h *Handlers) lookUpIDs(ctx context.Context, text string, p *pages.SearchProps) (*payouts.IDLookup, error) {
	offered, err := h.offers(ctx, payouts.ExtIDLookup)
	if err != nil || offered {
		if err != nil {
			return nil, err
		}
		return h.payouts.LookUpIDs(ctx, text)
	}
	if !payouts.ValidID(text) {
		p.AddNote(notOffered("Finding objects by a short id or the beginning of an id") + " Search for the whole id.")
		return &payouts.IDLookup{}, nil
	}
	// fetch asks for each; an id of another kind answers 404 and is left out.
	return &payouts.IDLookup{Users: []string{text}, PayoutLinks: []string{text}, Transfers: []string{text}, Flows: []string{text}}, nil
}

// createdPayoutRequests is the oldest limit payout requests waiting for review, and how many
// wait. Without our queue (status, order and count), they are found among the newest payout
// requests, and note says over how many.
func (h *Handlers) createdPayoutRequests(ctx context.Context, limit int) (oldest []payouts.PayoutRequest, waiting int, note string, err error) {
	offered, err := h.offers(ctx, payouts.ExtPayoutRequestQueue)
	if err != nil {
		return nil, 0, "", err
	}
	created := payouts.PayoutRequestFilter{Status: payouts.RequestCreated, Order: payouts.OrderOldest}
	if offered {
		requests, err := h.payouts.ListPayoutRequests(ctx, payouts.Page{Limit: limit}, created)
		if err != nil {
			return nil, 0, "", err
		}
		count, err := h.payouts.CountPayoutRequests(ctx, created)
		if err != nil {
			return nil, 0, "", err
		}
		return requests.Data, int(count.Count), "", nil
	}
	s, err := scanNewest(h.payouts.AllPayoutRequests(ctx, payouts.PayoutRequestFilter{}),
		func(r payouts.PayoutRequest) bool { return r.Status == payouts.RequestCreated }, scanRows)
	if err != nil {
		return nil, 0, "", err
	}
	slices.Reverse(s.rows) // oldest first, as the queue is worked
	return s.rows[:min(len(s.rows), limit)], len(s.rows), s.note("payout requests", "by status"), nil
}

// notesOf is a note as a page's notes: none when it is empty.
func notesOf(note string) []string {
	if note == "" {
		return nil
	}
	return []string{note}
}

// unavailable renders, in place of a page only our Payout Service can serve, the page's title and
// the line that says so, when the service does not offer ext; done reports that it did.
func (h *Handlers) unavailable(c *fiber.Ctx, ext payouts.Extension, title, what string) (done bool, err error) {
	offered, err := h.offers(c.UserContext(), ext)
	if err != nil || offered {
		return false, err
	}
	return true, h.web.Render(c, fiber.StatusOK, web.Page{Title: title, Content: pages.Unavailable(title, notOffered(what))})
}
