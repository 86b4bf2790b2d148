package handlers

import (
	"context"
	"encoding/csv"
	"io"
	"iter"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/web"
)

// exportCSV answers with a CSV file of every row of list, written as the rows arrive: the
// client's iterator fetches pages of 100 as the writing needs them, so memory stays flat at any
// size. The first row is read before the answer starts, so a failing service still gets an
// error page; a failure past that point breaks the download instead of ending it early, so a
// cut-off file never passes for a whole one.
func exportCSV[T any](c *fiber.Ctx, srv *web.Server, filename string, header []string,
	list func(context.Context) iter.Seq2[T, error], record func(T) []string) error {
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
		cw := csv.NewWriter(w)
		if err := cw.Write(header); err != nil {
			return err
		}
		for ; ok; row, err, ok = next() {
			if err != nil {
				return err
			}
			if err := cw.Write(record(row)); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// csvText guards a text cell against formula injection: a spreadsheet runs a cell that starts
// with = + - @ (or a tab or carriage return, which some read past) as a formula, so such a cell
// gets a leading quote and is read as text.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// csvTime writes a time in RFC 3339, in UTC.
func csvTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

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
