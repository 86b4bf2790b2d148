package handlers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// Limits of one bulk payout file. A row of a user id, an amount, a memo and a method is about
// 100 bytes, so 4 MiB holds 10,000 rows with long memos.
const (
	bulkMaxRows  = 10_000
	bulkMaxBytes = 4 << 20
)

// bulkWallet is the method that credits the payee's wallet with a transfer instead of paying out.
const bulkWallet = dashstore.BulkWallet

// bulkMethods are the methods a row may name, besides bulkWallet (or nothing, which is it too).
var bulkMethods = []payouts.Platform{payouts.PlatformPayPal, payouts.PlatformVenmo, payouts.PlatformCashApp,
	payouts.PlatformACH, payouts.PlatformDefault}

// fileProblem is what is wrong with a bulk file as a whole: sentences the upload form shows the
// operator as they are written.
type fileProblem string

func (p fileProblem) Error() string { return string(p) }

// parseBulkCSV reads a bulk payout file: a header row naming user and amount (and optionally memo
// and method) in any order and case, then one payout a row. UTF-8 with or without a byte-order
// mark, CRLF or LF. A problem with the file as a whole is an error; a problem with a row (an
// amount or a method it cannot read) is put on the row, which is kept, so the preview can name it.
func parseBulkCSV(data []byte) ([]dashstore.BulkRow, error) {
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	if !utf8.Valid(data) {
		return nil, fileProblem("The file is not UTF-8 text. Save it as “CSV UTF-8” and upload it again.")
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // a short row is the row's problem, not the file's
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fileProblem("The file is empty. It needs a header row (user, amount, memo, method) and a row per payout.")
	}
	if err != nil {
		return nil, csvProblem(err)
	}
	col, err := bulkColumns(header)
	if err != nil {
		return nil, err
	}
	var rows []dashstore.BulkRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvProblem(err)
		}
		if len(rows) == bulkMaxRows {
			return nil, fileProblem("The file has more than " + components.Count(bulkMaxRows) + " rows. Split it into files of at most " + components.Count(bulkMaxRows) + " rows.")
		}
		if blank(rec) {
			continue
		}
		rows = append(rows, bulkRowOf(len(rows)+1, rec, col))
	}
	if len(rows) == 0 {
		return nil, fileProblem("The file has a header row but no payouts.")
	}
	return rows, nil
}

// bulkColumns finds the index of each known column in the header; absent optional ones are -1.
func bulkColumns(header []string) (map[string]int, error) {
	col := map[string]int{"user": -1, "amount": -1, "memo": -1, "method": -1}
	for i, name := range header {
		name = strings.ToLower(strings.TrimSpace(name))
		if j, known := col[name]; known {
			if j >= 0 {
				return nil, fileProblem(fmt.Sprintf("The header names the column %q twice.", name))
			}
			col[name] = i
		}
	}
	if col["user"] < 0 || col["amount"] < 0 {
		return nil, fileProblem("The header row must name the columns user and amount (memo and method are optional).")
	}
	return col, nil
}

// bulkRowOf reads one record into a row, noting what is wrong with it.
func bulkRowOf(n int, rec []string, col map[string]int) dashstore.BulkRow {
	cell := func(name string) string {
		if i := col[name]; i >= 0 && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	row := dashstore.BulkRow{Row: n, UserRef: cell("user"), Memo: cell("memo"), Method: strings.ToLower(cell("method"))}
	if row.Method == "" {
		row.Method = bulkWallet
	}
	amount, err := payouts.ParseDollars(cell("amount"))
	row.Amount = int64(amount)
	switch {
	case row.UserRef == "":
		row.Problem = "Give a user id or an email."
	case err != nil:
		row.Problem = "Column amount: " + quoted(cell("amount")) + " cannot be read: " + err.Error() + "."
	case amount <= 0:
		row.Problem = "The amount must be more than $0.00."
	case amount > payouts.MaxAmount:
		row.Problem = "The amount must be at most " + payouts.MaxAmount.String() + "."
	case !bulkMethodKnown(row.Method):
		row.Problem = "Unknown method " + quoted(row.Method) + ": use wallet, paypal, venmo, cash_app, ach or default."
	case len(row.Memo) > 200:
		row.Problem = "The memo is longer than 200 characters."
	}
	return row
}

func bulkMethodKnown(m string) bool {
	if m == bulkWallet {
		return true
	}
	for _, p := range bulkMethods {
		if m == string(p) {
			return true
		}
	}
	return false
}

// csvProblem says where a file stops being CSV, for the operator to fix.
func csvProblem(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileProblem(fmt.Sprintf("The file is not valid CSV at line %d: %v.", pe.Line, pe.Err))
	}
	return err
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func quoted(s string) string {
	if s == "" {
		return "(empty)"
	}
	return "“" + s + "”"
}
