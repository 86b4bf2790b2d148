package handlers

import (
	"iter"
	"slices"
	"strconv"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestScanPage pages through the even numbers among a list's rows, newest first, as a list the
// public API cannot filter is paged here: each page follows its cursor, says whether more lie
// beyond it, and never reads past scanRows.
func TestScanPage(t *testing.T) {
	t.Parallel()
	newestFirst := func(n int) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := n; i > 0; i-- {
				if !yield(i, nil) {
					return
				}
			}
		}
	}
	even := func(i int) bool { return i%2 == 0 }
	id := strconv.Itoa
	for _, tc := range []struct {
		name     string
		rows     int
		page     payouts.Page
		want     []int
		more     bool
		wantNote string
	}{
		{"first page", 20, payouts.Page{Limit: 3}, []int{20, 18, 16}, true,
			"Filtered here over the newest 7 rows, up to this page (this API cannot filter them by parity)."},
		{"after a cursor", 20, payouts.Page{Limit: 3, StartingAfter: "16"}, []int{14, 12, 10}, true, ""},
		{"the last page", 20, payouts.Page{Limit: 3, StartingAfter: "6"}, []int{4, 2}, false,
			"Filtered here over all 20 rows (this API cannot filter them by parity)."},
		{"before a cursor", 20, payouts.Page{Limit: 3, EndingBefore: "10"}, []int{16, 14, 12}, true, ""},
		{"before a cursor, back at the newest", 20, payouts.Page{Limit: 3, EndingBefore: "14"}, []int{20, 18, 16}, false, ""},
		{"a cursor beyond what is read", scanRows + 10, payouts.Page{Limit: 3, StartingAfter: "4"}, nil, false,
			"Filtered here over the newest 500 rows; older ones were not searched (this API cannot filter them by parity)."},
		{"the last page the bound reaches", scanRows + 10, payouts.Page{Limit: 3, StartingAfter: "16"}, []int{14, 12}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, more, err := scanPage(newestFirst(tc.rows), even, tc.page, id)
			if err != nil || !slices.Equal(s.rows, tc.want) || more != tc.more {
				t.Errorf("page %v, more %v, %v; want %v, more %v", s.rows, more, err, tc.want, tc.more)
			}
			if s.read > scanRows {
				t.Errorf("read %d rows, more than %d", s.read, scanRows)
			}
			if got := s.note("rows", "by parity"); tc.wantNote != "" && got != tc.wantNote {
				t.Errorf("note %q, want %q", got, tc.wantNote)
			}
		})
	}
	t.Run("a list without further pages", func(t *testing.T) {
		s, err := scanNewest(newestFirst(20), even, 3)
		want := "Filtered here over the newest 7 rows; older ones were not searched (this API cannot filter them by parity)."
		if err != nil || !slices.Equal(s.rows, []int{20, 18, 16}) || s.note("rows", "by parity") != want {
			t.Errorf("rows %v, note %q, %v; want [20 18 16], %q", s.rows, s.note("rows", "by parity"), err, want)
		}
	})
}
