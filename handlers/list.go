package handlers

import (
	"context"
	"iter"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// Every list page takes its cursor from ?after=ID (older rows) or ?before=ID (newer rows), the
// API's starting_after and ending_before, so each page costs the same and its URL is a bookmark.

// pageOf reads the page a list request asks for.
func pageOf(c *fiber.Ctx, limit int) payouts.Page {
	return payouts.Page{Limit: limit, StartingAfter: c.Query("after"), EndingBefore: c.Query("before")}
}

// pageLinks builds the newer and older links of a page of rows whose first and last ids are
// given. query holds the list's other parameters (filters), kept in both links.
func pageLinks(path string, query url.Values, page payouts.Page, firstID, lastID string, hasMore bool, target string) components.PageLinks {
	links := components.PageLinks{Target: target}
	if firstID == "" {
		return links
	}
	link := func(key, id string) string {
		q := url.Values{}
		for k, vs := range query {
			if vs[0] != "" && k != "after" && k != "before" {
				q.Set(k, vs[0])
			}
		}
		q.Set(key, id)
		return path + "?" + q.Encode()
	}
	backward := page.EndingBefore != ""
	if (backward && hasMore) || (!backward && page.StartingAfter != "") {
		links.Prev = link("before", firstID)
	}
	if backward || hasMore {
		links.Next = link("after", lastID)
	}
	return links
}

// queryURL is path with the non-empty values of query, as a link keeps a list's filters.
func queryURL(path string, query url.Values) string {
	q := url.Values{}
	for k, vs := range query {
		if len(vs) > 0 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// options turns values into the choices of a select, led by the choice of no filter.
func options[T ~string](noFilter string, values []T, label func(T) string) []components.Option {
	out := []components.Option{{Value: "", Label: noFilter}}
	for _, v := range values {
		out = append(out, components.Option{Value: string(v), Label: label(v)})
	}
	return out
}

// choiceOf is the value of a select of the filter form (a type, a status) when valid accepts it;
// any other value is no filter, and leaves the form, so that the list claims none.
func choiceOf[T ~string](lf *listFilter, field string, valid func(T) bool) T {
	v := T(lf.form.Value(field))
	if v != "" && !valid(v) {
		// A value no choice of the form has (an old or hand-made address) is said, not dropped:
		// the list would otherwise look filtered when it is not.
		addProblem(&lf.form, field, unknownChoice(string(v), field))
		return ""
	}
	return v
}

// unknownChoice is the problem of a filter's value that is none of its choices.
func unknownChoice(v, field string) string {
	return "“" + v + "” is not a " + field + " this list knows: choose one from the list"
}

// Page sizes the reconciliation lists offer; the first is not the default.
var pageSizes = []int{25, 50, 100}

const defaultPageSize = 50

// listFilter is what the transfers and transactions pages, and their exports, read from the
// query: a user picked in the user search box, a date range in the operator's time zone, an
// amount range in dollars, a page size and the row number the page starts at. Everything lives
// in the URL, so a filtered page is a bookmark.
type listFilter struct {
	form   components.Form // the filter as typed, with a message on each field that could not be used
	userID string
	rng    payouts.Range
	page   payouts.Page
	start  int // how many rows come before this page, as the links that led here counted
}

// listFilterFields are the query parameters every reconciliation list reads; extra names the
// list's own (type, status).
var listFilterFields = []string{"user", "user_id", "from", "to", "min", "max", "tz", "limit"}

// listFilterOf reads a reconciliation list's filter. The user is the payee picker's
// (choosePayee): the one chosen from its suggestions or, without JavaScript, the one user what
// was typed finds. Dates are days in the browser's zone (tz, which static/js/app.js fills; UTC without
// script); "to" is the last day included.
func (h *Handlers) listFilterOf(c *fiber.Ctx, extra ...string) listFilter {
	f := listFilter{form: components.Form{Values: map[string]string{}}}
	for _, name := range append(listFilterFields, extra...) {
		if v := strings.TrimSpace(c.Query(name)); v != "" {
			f.form.Values[name] = v
		}
	}
	f.userID = h.userOfFilter(c, &f.form)
	f.rng.CreatedFrom, f.rng.CreatedTo = dayRangeOf(&f.form, h.zoneOf(c, &f.form))
	for field, bound := range map[string]*payouts.Money{"min": &f.rng.AmountMin, "max": &f.rng.AmountMax} {
		if f.form.Value(field) != "" {
			if m, ok := amountOf(&f.form, field); ok && m < 0 {
				addProblem(&f.form, field, "enter the amount without a sign")
			} else {
				*bound = m
			}
		}
	}
	if f.form.Error("min") == "" && f.form.Error("max") == "" && f.rng.AmountMax != 0 && f.rng.AmountMin > f.rng.AmountMax {
		addProblem(&f.form, "max", "enter an amount no smaller than the minimum")
	}
	size, _ := strconv.Atoi(f.form.Value("limit"))
	if !slices.Contains(pageSizes, size) {
		size = defaultPageSize
		delete(f.form.Values, "limit")
	}
	f.page = pageOf(c, size)
	// start only numbers the rows shown ("51–100"); the cursor picks them, so a bad one reads as 0.
	f.start, _ = strconv.Atoi(c.Query("start"))
	f.start = max(f.start, 0)
	return f
}

// dayRangeOf reads a filter's "from" and "to" days in loc, the operator's zone (zoneOf): from
// the first instant of "from" to the end of "to", the last day included. Zero is no bound; a
// day it cannot read is a problem on its field.
func dayRangeOf(form *components.Form, loc *time.Location) (from, to time.Time) {
	day := func(field string) time.Time {
		v := form.Value(field)
		if v == "" {
			return time.Time{}
		}
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil {
			addProblem(form, field, "enter a date like 2026-03-31")
		}
		return d
	}
	from = day("from")
	if last := day("to"); !last.IsZero() {
		to = last.AddDate(0, 0, 1)
	}
	if !from.IsZero() && !to.IsZero() && !to.After(from) {
		addProblem(form, "to", "choose a day on or after the first day")
	}
	return from, to
}

// userOfFilter finds the user a list is narrowed to (choosePayee), or puts the problem on the
// form's user field.
func (h *Handlers) userOfFilter(c *fiber.Ctx, form *components.Form) string {
	id, err := h.choosePayee(c.UserContext(), form)
	if err != nil {
		addProblem(form, "user", "could not be looked up just now; try again")
	}
	return id
}

// query is the filter as URL parameters, for the links of the page, its export and its pager.
func (f listFilter) query() url.Values { return filterQuery(f.form) }

// narrows reports whether the filter narrows the rows (formNarrows).
func (f listFilter) narrows() bool { return formNarrows(f.form) }

// formNarrows reports whether a filter form narrows the rows. The time zone and page size shape
// the page but leave every row in, and the form always sends them, even with nothing filled in.
func formNarrows(form components.Form) bool {
	for name := range form.Values {
		if name != "tz" && name != "limit" {
			return true
		}
	}
	return false
}

// problem is the filter's problems in one sentence, for the export, which has no form to show
// them on.
func (f listFilter) problem() string { return formProblems(f.form) }

// formProblems is a filter form's problems in one sentence, for an export or a page that has
// no field to show them on.
func formProblems(form components.Form) string {
	var out []string
	for field, p := range form.Errors {
		out = append(out, field+": "+p)
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// positioned gives the links of a page the row number their page starts at, so the next page
// can say "51–100 of 1,450" without counting the rows before it.
func positioned(links components.PageLinks, f listFilter, rows int) components.PageLinks {
	set := func(link string, start int) string {
		u, err := url.Parse(link)
		if link == "" || err != nil {
			return link
		}
		q := u.Query()
		q.Set("start", strconv.Itoa(max(start, 0)))
		u.RawQuery = q.Encode()
		return u.String()
	}
	links.Prev = set(links.Prev, f.start-f.page.Limit)
	links.Next = set(links.Next, f.start+rows)
	return links
}

// reconcile fills what the transfers and transactions pages share: the form, the user box, the
// page sizes, the export link. When the filter can be used, load reads the page and its summary
// and returns how many rows it holds and whether it read the summary (the public API has none);
// when the filter cannot be used, the form shows why (422) and nothing is read.
func (h *Handlers) reconcile(c *fiber.Ctx, path, target string, f listFilter, p *pages.ListProps, load func() (int, bool, error)) (int, error) {
	noun := strings.TrimPrefix(path, "/")
	p.Filter = f.form
	p.UserSearch = filterPicker(f.form)
	p.PageSizes = make([]components.Option, len(pageSizes))
	for i, n := range pageSizes {
		p.PageSizes[i] = components.Option{Value: strconv.Itoa(n), Label: strconv.Itoa(n)}
	}
	p.PageSize = strconv.Itoa(f.page.Limit)
	p.Filtered = f.narrows() || f.page.StartingAfter != "" || f.page.EndingBefore != ""
	if len(f.form.Errors) > 0 {
		p.Problem = "Correct the filter to see the " + noun + "."
		return fiber.StatusUnprocessableEntity, nil
	}
	rows, summarized, err := load()
	if err != nil {
		return 0, err
	}
	p.HasSummary = summarized
	p.Summary.Noun, p.Summary.Start, p.Summary.Rows = noun, f.start, rows
	p.Pages = positioned(p.Pages, f, rows)
	p.Pages.Target = target
	if h.can(c, web.PermExport) {
		p.ExportURL = queryURL(path+"/export", f.query())
	}
	return fiber.StatusOK, nil
}

// reconciled is how one reconciliation list reads its rows (reconcileRows).
type reconciled[T any] struct {
	path, target string // the page and its swap target, for the pager's links
	noun, by     string // what the rows are and the filters the service lacks, for the note
	// source and keep are the rows the dashboard filters itself and how, when the service
	// cannot (transferSource); source is nil when the service applies the filter.
	source    iter.Seq2[T, error]
	keep      func(T) bool
	id        func(T) string
	userOf    func(T) *string
	list      func() (*payouts.List[T], error)
	summarize func() (*payouts.Summary, error)
	typeName  func(string) string // the list's name for a type of its rows, for the summary's breakdown
}

// rowsAndPayees are a page's rows and the payees they name.
type rowsAndPayees[T any] struct {
	rows   []T
	payees map[string]components.PayeeProps
}

// reconcileRows reads a reconciliation list's rows into p: the service's page with its pager,
// or, filtered here, the page of matches among the newest rows (scanPage) with its pager and the
// note that says over how many; then the summary when the service offers one, and the rows' payees.
func reconcileRows[T any](h *Handlers, c *fiber.Ctx, lf listFilter, p *pages.ListProps, r reconciled[T]) (rowsAndPayees[T], bool, error) {
	var out rowsAndPayees[T]
	if r.source != nil {
		s, more, err := scanPage(r.source, r.keep, lf.page, r.id)
		if err != nil {
			return out, false, err
		}
		out.rows = s.rows
		p.Notes = append(p.Notes, s.note(r.noun, r.by))
		if n := len(s.rows); n > 0 {
			p.Pages = pageLinks(r.path, lf.query(), lf.page, r.id(s.rows[0]), r.id(s.rows[n-1]), more, r.target)
		}
	} else {
		list, err := r.list()
		if err != nil {
			return out, false, err
		}
		out.rows = list.Data
		if n := len(list.Data); n > 0 {
			p.Pages = pageLinks(r.path, lf.query(), lf.page, r.id(list.Data[0]), r.id(list.Data[n-1]), list.HasMore, r.target)
		}
	}
	summarized, err := h.summaryOf(c.UserContext(), p, r.noun, r.summarize, r.typeName)
	if err != nil {
		return out, false, err
	}
	out.payees, err = payeesOf(h, c, out.rows, r.userOf)
	return out, summarized, err
}

// summaryOf reads the summary of a list's filter into p when the service offers summaries, and
// otherwise notes that it does not; it reports whether p has one.
func (h *Handlers) summaryOf(ctx context.Context, p *pages.ListProps, noun string, read func() (*payouts.Summary, error),
	typeName func(string) string) (bool, error) {
	offered, err := h.offers(ctx, payouts.ExtSummaries)
	if err != nil || !offered {
		p.Notes = append(p.Notes, notOffered("The count and totals of the filtered "+noun))
		return false, err
	}
	sum, err := read()
	if err != nil {
		return false, err
	}
	p.Summary.Summary = *sum
	p.Summary.Types = typeTotals(sum.ByType, typeName)
	return true, nil
}

// typeTotals is a breakdown by type for components.ByType, name giving the page's name for each
// type.
func typeTotals(ts []payouts.TypeTotal, name func(string) string) []components.TypeTotal {
	out := make([]components.TypeTotal, len(ts))
	for i, t := range ts {
		out[i] = components.TypeTotal{Type: t.Type, Label: name(t.Type), Count: t.Count, MoneyIn: t.MoneyIn, MoneyOut: t.MoneyOut}
	}
	return out
}

// payeesOf names the users the rows of a page are about, for the page to show their names and
// emails: one lookup per distinct user (peopleOf). A user the service no longer has shows as its id.
func payeesOf[T any](h *Handlers, c *fiber.Ctx, rows []T, userOf func(T) *string) (map[string]components.PayeeProps, error) {
	ids := make([]*string, len(rows))
	for i, row := range rows {
		ids[i] = userOf(row)
	}
	people, err := h.peopleOf(c.UserContext(), ids...)
	if err != nil {
		return nil, err
	}
	out := map[string]components.PayeeProps{}
	for _, id := range ids {
		if id == nil || *id == "" {
			continue
		}
		u := people[*id]
		out[*id] = components.PayeeProps{ID: *id, Name: u.Name(), Email: u.Email}
	}
	return out, nil
}

// filterOf adapts a reconciliation list's filter reader to the exports', which take the filter,
// its query for the audit log, and its problems as one sentence.
func filterOf[F any](read func(*fiber.Ctx) (F, listFilter)) func(*fiber.Ctx) (F, url.Values, string) {
	return func(c *fiber.Ctx) (F, url.Values, string) {
		f, lf := read(c)
		q := lf.query()
		q.Del("tz")
		q.Del("limit")
		return f, q, lf.problem()
	}
}
