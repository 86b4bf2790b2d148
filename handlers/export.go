package handlers

import (
	"context"
	"encoding/csv"
	"io"
	"iter"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/web"
)

// exportCSV answers with a CSV file of every row of list, written as the rows arrive: the
// client's iterator fetches pages of 100 as the writing needs them, so memory stays flat at any
// size. The first row is read before the answer starts, so a failing service still gets an
// error page; a failure past that point breaks the download instead of ending it early, so a
// cut-off file never passes for a whole one. The file starts with a byte-order mark: without it
// Excel reads UTF-8 as a legacy code page and garbles names like "Zoë García-López". Every
// export's times are in loc, the operator's zone (exportZone, csvTime), and its last column,
// time_zone, names that zone on every row, so a row copied out of the file still says it.
func exportCSV[T any](c *fiber.Ctx, srv *web.Server, filename string, loc *time.Location, header []string,
	list func(context.Context) iter.Seq2[T, error], record func(context.Context, T) ([]string, error)) error {
	// The rows are written after the handler returns, so they must not depend on its context.
	ctx, cancel := context.WithCancel(context.WithoutCancel(c.UserContext()))
	next, stop := iter.Pull2(list(ctx))
	row, err, ok := next()
	if ok && err != nil {
		stop()
		cancel()
		return err
	}
	return srv.Stream(c, "text/csv; charset=utf-8", filename, func(w io.Writer) error {
		defer cancel()
		defer stop()
		if _, err := io.WriteString(w, utf8BOM); err != nil {
			return err
		}
		cw := csv.NewWriter(w)
		if err := cw.Write(append(slices.Clip(header), "time_zone")); err != nil {
			return err
		}
		for ; ok; row, err, ok = next() {
			if err != nil {
				return err
			}
			cells, err := record(ctx, row)
			if err != nil {
				return err
			}
			if err := cw.Write(append(cells, loc.String())); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

const utf8BOM = "\ufeff"

// exportWithPayees streams as CSV every row (noun, as "transfers") of the filter a list page
// reads from the query (filterOf), page by page from the service, so an export of any size holds
// one page in memory and the payees of the users it met (userOf). The export is recorded in the
// audit log; a filter the list would refuse is a bad request.
func exportWithPayees[F, T any](h *Handlers, c *fiber.Ctx, noun string, filterOf func(*fiber.Ctx) (F, url.Values, string),
	all func(context.Context, F) iter.Seq2[T, error], userOf func(T) *string, header []string,
	record func(T, payee, *time.Location) []string) error {
	filter, query, problem := filterOf(c)
	if problem != "" {
		return fiber.NewError(fiber.StatusBadRequest, problem)
	}
	read, err := h.userReader(c.UserContext(), true)
	if err != nil {
		return err
	}
	h.audit(c, noun+".export", noun, "", "CSV of "+describeQuery(query))
	payees := newPayeeBook(read)
	loc := h.exportZone(c)
	return exportCSV(c, h.web, exportName(noun, h.now(), loc), loc, header,
		func(ctx context.Context) iter.Seq2[T, error] { return all(ctx, filter) },
		func(ctx context.Context, row T) ([]string, error) {
			p, err := payees.lookup(ctx, userOf(row))
			return record(row, p, loc), err
		})
}

// csvText guards a text cell against formula injection: a spreadsheet runs a cell that starts
// with = + - @ (or a tab or carriage return, which some read past) as a formula, so such a cell
// gets a leading quote and is read as text. A plain signed number ("-12.50") runs nothing and is
// left as it is, so a reader sees no quote where the value is a number.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) && !plainSignedNumber.MatchString(s) {
		return "'" + s
	}
	return s
}

// plainSignedNumber is a sign, digits and at most one decimal point between digits.
var plainSignedNumber = regexp.MustCompile(`^[+-][0-9]+(\.[0-9]+)?$`)

// csvTime writes a time in RFC 3339 in loc, the export's zone, with that zone's offset.
func csvTime(t time.Time, loc *time.Location) string { return t.In(loc).Format(time.RFC3339) }

// exportZone is the zone of an export's times and days: the one its list page reads (zoneOf,
// with the page's tz), so the file's days are the page's.
func (h *Handlers) exportZone(c *fiber.Ctx) *time.Location {
	return h.zoneOf(c, &components.Form{Values: map[string]string{"tz": c.Query("tz")}})
}

// exportName is the file name of an export of noun made at now, stamped in loc.
func exportName(noun string, now time.Time, loc *time.Location) string {
	return noun + "-" + now.In(loc).Format("20060102-150405") + ".csv"
}

// csvMetadata is an object's metadata as JSON, or an empty cell when it has none (not "null").
func csvMetadata(m payouts.Metadata) string { return csvText(string(payouts.NormalizeMetadata(m))) }

// payee is who a row of an export pays, as finance reads it.
type payee struct{ name, email string }

// payeeBook finds the users the rows of one export name, asking the service once per user
// rather than once per row; it lives as long as the export, so it holds at most its users.
type payeeBook struct {
	getUser func(context.Context, string) (*payouts.User, error)
	known   map[string]payee
}

func newPayeeBook(getUser func(context.Context, string) (*payouts.User, error)) *payeeBook {
	return &payeeBook{getUser: getUser, known: map[string]payee{}}
}

// lookup returns the user's name and email; no user, or one the service no longer has, is an
// empty payee.
func (b *payeeBook) lookup(ctx context.Context, userID *string) (payee, error) {
	if userID == nil || *userID == "" {
		return payee{}, nil
	}
	if p, ok := b.known[*userID]; ok {
		return p, nil
	}
	var p payee
	u, err := b.getUser(ctx, *userID)
	switch {
	case payouts.ErrorCode(err) == payouts.ENotFound:
	case err != nil:
		return payee{}, err
	default:
		p = payee{name: strings.TrimSpace(u.FirstName + " " + u.LastName), email: u.Email}
	}
	b.known[*userID] = p
	return p, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// describeQuery says which rows an export holds, for the audit log.
func describeQuery(q url.Values) string {
	var parts []string
	for k, vs := range q {
		if len(vs) > 0 && vs[0] != "" {
			parts = append(parts, k+"="+vs[0])
		}
	}
	if len(parts) == 0 {
		return "everything"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
