package sqldb

import (
	"fmt"
	"math/bits"
	"strings"
)

// MaxParams is the most bound parameters one statement may carry on both engines: SQLite's
// limit (PostgreSQL's is 65,535).
const MaxParams = 32766

// InsertRows inserts n rows as multi-row INSERTs of at most perStatement rows each, so many rows
// cost a statement per chunk instead of one each. What is left after the whole chunks goes, on
// SQLite, in chunks of powers of two (37 rows: 32, 4, 1), so that a caller's statement has at
// most eight or so texts, which all stay prepared, instead of one per row count, which would fill
// the statement cache (DB.Prepared), which never evicts. On PostgreSQL it goes in one statement
// of its own size: pgx keeps the statements a connection uses most and forgets the others, and
// each further statement is a round trip (measured: 9% more transfers at 64 clients). insert is
// the statement up to VALUES; row(i) returns the values of row i; tail follows the VALUES (ON
// CONFLICT, RETURNING, or empty); run executes each statement, written with ? placeholders, with
// its arguments. A chunk whose values would pass MaxParams is an error, before anything runs:
// choose perStatement by the row's width.
func InsertRows(d Dialect, n, perStatement int, insert string, row func(i int) []any, tail string,
	run func(query string, args []any) error) error {
	for start, end := 0, 0; start < n; start = end {
		end = start + chunkSize(d, n-start, perStatement)
		var values strings.Builder
		var args []any
		for i := start; i < end; i++ {
			vals := row(i)
			if i > start {
				values.WriteString(", ")
			}
			values.WriteString("(" + strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ") + ")")
			args = append(args, vals...)
		}
		if len(args) > MaxParams {
			return fmt.Errorf("sqldb: %d rows of %d values pass the %d bound parameters of a statement",
				end-start, len(args)/(end-start), MaxParams)
		}
		if err := run(insert+" VALUES "+values.String()+" "+tail, args); err != nil {
			return err
		}
	}
	return nil
}

// chunkSize is how many of left rows the next statement takes: a whole chunk, or else all of
// them on PostgreSQL and the largest power of two in them on SQLite.
func chunkSize(d Dialect, left, perStatement int) int {
	switch {
	case left >= perStatement:
		return perStatement
	case d == Postgres:
		return left
	}
	return 1 << (bits.Len(uint(left)) - 1)
}

// PadIDs returns ids grown to a power of two by repeating the last, for an IN list: the list
// means the same, and a query has a few texts instead of one per length (see InsertRows).
func PadIDs[ID any](ids []ID) []ID {
	if len(ids) == 0 {
		return ids
	}
	n := 1 << bits.Len(uint(len(ids)-1))
	padded := ids[:len(ids):len(ids)] // appending copies: the caller's slice is left alone
	for len(padded) < n {
		padded = append(padded, ids[len(ids)-1])
	}
	return padded
}
