package sqldb_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/sqldb"
)

func TestInsertRows(t *testing.T) {
	for _, tc := range []struct {
		name         string
		dialect      sqldb.Dialect
		n, per, cols int
		wantStmts    []string // each statement's VALUES, rows given by their first value
		wantErr      string
	}{
		{name: "none", n: 0, per: 2, cols: 2},
		{name: "one short chunk", n: 1, per: 2, cols: 2, wantStmts: []string{"(?, ?)"}},
		{name: "full chunks and the rest", n: 5, per: 2, cols: 1, wantStmts: []string{"(?), (?)", "(?), (?)", "(?)"}},
		{name: "the rest in powers of two", n: 7 + 8, per: 8, cols: 1, wantStmts: []string{
			"(?), (?), (?), (?), (?), (?), (?), (?)", "(?), (?), (?), (?)", "(?), (?)", "(?)"}},
		{name: "the rest whole on PostgreSQL", dialect: sqldb.Postgres, n: 7 + 8, per: 8, cols: 1, wantStmts: []string{
			"(?), (?), (?), (?), (?), (?), (?), (?)", "(?), (?), (?), (?), (?), (?), (?)"}},
		{name: "past the parameter limit", n: 2, per: 2, cols: sqldb.MaxParams/2 + 1, wantErr: "bound parameters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stmts []string
			var got []any
			err := sqldb.InsertRows(tc.dialect, tc.n, tc.per, "INSERT INTO t (a)", func(i int) []any {
				vals := make([]any, tc.cols)
				vals[0] = i
				return vals
			}, "ON CONFLICT DO NOTHING", func(query string, args []any) error {
				values, ok := strings.CutPrefix(query, "INSERT INTO t (a) VALUES ")
				values, tail := strings.CutSuffix(values, " ON CONFLICT DO NOTHING")
				if !ok || !tail {
					t.Errorf("statement %q", query)
				}
				stmts = append(stmts, values)
				for i := 0; i < len(args); i += tc.cols {
					got = append(got, args[i])
				}
				return nil
			})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || len(stmts) != 0 {
					t.Fatalf("err = %v after %d statements, want %q before any", err, len(stmts), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(stmts, tc.wantStmts) {
				t.Errorf("statements %q, want %q", stmts, tc.wantStmts)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("rows in order %v, want 0..%d", got, tc.n-1)
				}
			}
			if len(got) != tc.n {
				t.Errorf("%d rows inserted, want %d", len(got), tc.n)
			}
		})
	}
}

func TestPadIDs(t *testing.T) {
	for _, tc := range []struct {
		ids, want []string
	}{
		{nil, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a", "b", "c"}, []string{"a", "b", "c", "c"}},
		{[]string{"a", "b", "c", "d", "e"}, []string{"a", "b", "c", "d", "e", "e", "e", "e"}},
	} {
		t.Run(strings.Join(tc.ids, ","), func(t *testing.T) {
			ids := make([]string, len(tc.ids), 8) // room to grow in place, which must not happen
			copy(ids, tc.ids)
			got := sqldb.PadIDs(ids)
			if !slices.Equal(got, tc.want) {
				t.Errorf("PadIDs(%q) = %q, want %q", tc.ids, got, tc.want)
			}
			if !slices.Equal(ids, tc.ids) || slices.ContainsFunc(ids[len(ids):cap(ids)], func(s string) bool { return s != "" }) {
				t.Errorf("PadIDs changed its argument's array: %q", ids[:cap(ids)])
			}
		})
	}
}
