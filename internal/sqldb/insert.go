package sqldb

import (
	"fmt"
	"strings"
)

// MaxParams is the most bound parameters one statement may carry on both engines: SQLite's
// limit (PostgreSQL's is 65,535).
const MaxParams = 32766

// InsertRows inserts n rows as multi-row INSERTs of at most perStatement rows each, so many rows
// cost a statement per chunk instead of one each. insert is the statement up to VALUES; row(i)
// returns the values of row i; tail follows the VALUES (ON CONFLICT, RETURNING, or empty); run
// executes each statement, written with ? placeholders, with its arguments. A chunk whose values
// would pass MaxParams is an error, before anything runs: choose perStatement by the row's width.
func InsertRows(n, perStatement int, insert string, row func(i int) []any, tail string,
	run func(query string, args []any) error) error {
	for start := 0; start < n; start += perStatement {
		end := min(start+perStatement, n)
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
