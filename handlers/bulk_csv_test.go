package handlers

import (
	"strconv"
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestParseBulkCSV(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		want    []string // per row: user|amount|memo|method|problem
		problem string   // part of the file's problem, if it has one
	}{
		{name: "plain", file: "user,amount,memo,method\nada@example.com,25.00,June,paypal\n",
			want: []string{"ada@example.com|2500|June|paypal|"}},
		{name: "BOM, CRLF, upper-case header in another order, no method is the wallet",
			file: "\ufeffAmount,USER,Memo\r\n\"$1,250.00\",ada@example.com,\r\n",
			want: []string{"ada@example.com|125000||wallet|"}},
		{name: "blank lines are skipped; rows count from the first payout",
			file: "user,amount\n\nada@example.com,1\n,\nbob@example.com,2\n",
			want: []string{"ada@example.com|100||wallet|", "bob@example.com|200||wallet|"}},
		{name: "row problems are kept on the row",
			file: "user,amount,method\n,5,\nada@example.com,12.345,\nada@example.com,-3,\nada@example.com,3,carrier pigeon\nada@example.com\n" +
				"ada@example.com,10000000000.01,\n",
			want: []string{"|500||wallet|Give a user id or an email.",
				"ada@example.com|0||wallet|Column amount: “12.345” cannot be read: use at most two decimals.",
				"ada@example.com|-300||wallet|The amount must be more than $0.00.",
				"ada@example.com|300||carrier pigeon|Unknown method “carrier pigeon”: use wallet, paypal, venmo, cash_app, ach or default.",
				"ada@example.com|0||wallet|Column amount: (empty) cannot be read: enter an amount.",
				"ada@example.com|1000000000001||wallet|The amount must be at most $10,000,000,000.00."}},
		{name: "empty file", file: "", problem: "The file is empty"},
		{name: "header only", file: "user,amount\n", problem: "no payouts"},
		{name: "no amount column", file: "user,memo\nada@example.com,x\n", problem: "must name the columns user and amount"},
		{name: "a column twice", file: "user,amount,User\na,1,b\n", problem: "names the column \"user\" twice"},
		{name: "not UTF-8", file: "user,amount\nZo\xeb,1\n", problem: "not UTF-8"},
		{name: "bad quoting", file: "user,amount\n\"ada,1\nbob\"x,2\n", problem: "not valid CSV at line"},
		{name: "too many rows", file: "user,amount\n" + strings.Repeat("ada@example.com,1\n", bulkMaxRows+1), problem: "more than 10,000 rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := parseBulkCSV([]byte(tt.file))
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("error %v, want one saying %q", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tt.want) {
				t.Fatalf("%d rows, want %d: %+v", len(rows), len(tt.want), rows)
			}
			for i, r := range rows {
				got := strings.Join([]string{r.UserRef, strconv.FormatInt(r.Amount, 10), r.Memo, r.Method, r.Problem}, "|")
				if got != tt.want[i] || r.Row != i+1 {
					t.Errorf("row %d = %d %q, want %d %q", i, r.Row, got, i+1, tt.want[i])
				}
			}
		})
	}
}

// FuzzParseBulkCSV feeds the parser arbitrary files: it never panics, and what it accepts is
// within the limits, numbered in order, with an amount or a problem.
func FuzzParseBulkCSV(f *testing.F) {
	for _, seed := range []string{"user,amount\nada@example.com,1.00\n", "\ufeffUSER,AMOUNT,METHOD\r\nx,$1,venmo\r\n",
		"amount,user,memo\n\"1,000\",b,\"a \"\"quoted\"\" memo\"\n", "user\n", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := parseBulkCSV(data)
		if err != nil {
			return
		}
		if len(rows) == 0 || len(rows) > bulkMaxRows {
			t.Fatalf("accepted %d rows", len(rows))
		}
		for i, r := range rows {
			if r.Row != i+1 {
				t.Fatalf("row %d numbered %d", i, r.Row)
			}
			if r.Problem == "" && (r.Amount <= 0 || r.Amount > int64(payouts.MaxAmount) || r.UserRef == "" || !bulkMethodKnown(r.Method)) {
				t.Fatalf("row %+v has no problem", r)
			}
		}
	})
}
