package taxform

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/disburse/disburse/payouts"
)

// IRISColumns are the columns of the 1099-NEC upload of the IRS's IRIS Taxpayer Portal, in order.
//
// The IRS publishes the template itself only inside the portal (a CSV per form and tax year,
// with its "Template Formatting Guidelines" PDF); we could not find its header row published
// anywhere we could cite, so this list is our reconstruction, not the IRS's verbatim header. It
// follows the portal's form entry as public guides to the upload describe it (BoomTax, "IRS IRIS
// CSV upload template guide": payer block, recipient block, then the form's boxes;
// FinchContext, "Build IRS 1099 e-file (IRIS CSV / A2A XML)": the same groups and the
// correction indicator) and the boxes of Form 1099-NEC. Before a first upload, compare it with
// the template the portal offers for the year, and change this list alone if they differ: every
// row is written from it.
var IRISColumns = []string{
	"Form Type",
	"Tax Year",
	"Corrected Return Indicator",
	"Payer TIN Type",
	"Payer TIN",
	"Payer Name",
	"Payer Address Line 1",
	"Payer Address Line 2",
	"Payer City",
	"Payer State",
	"Payer ZIP Code",
	"Payer Country",
	"Payer Phone Number",
	"Recipient TIN Type",
	"Recipient TIN",
	"Recipient Name",
	"Recipient Address Line 1",
	"Recipient Address Line 2",
	"Recipient City",
	"Recipient State",
	"Recipient ZIP Code",
	"Recipient Country",
	"Account Number",
	"Second TIN Notice",
	"Box 1 Nonemployee Compensation",
	"Box 2 Direct Sales Indicator",
	"Box 4 Federal Income Tax Withheld",
	"Box 5 State Tax Withheld",
	"Box 6 State",
	"Box 6 Payer State Number",
	"Box 7 State Income",
}

// Problem is a reason a return cannot be filed as it stands: the form (its id, empty for the
// whole file), the field and what is wrong with it.
type Problem struct {
	FormID string `json:"form_id,omitempty"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (p Problem) String() string {
	if p.FormID == "" {
		return p.Field + " " + p.Reason
	}
	return "form " + p.FormID + ": " + p.Field + " " + p.Reason
}

// validTIN is nine digits that are not a number the IRS never issues: all one digit, or
// 123456789.
func validTIN(tin string) bool {
	if len(tin) != 9 || !payouts.AllDigits(tin) || tin == "123456789" {
		return false
	}
	return strings.Count(tin, tin[:1]) != 9
}

// validName is a name the IRS's files take: 1 to 40 characters of letters, digits, spaces, and
// & - ' , . (IRIS refuses other punctuation in a name line).
func validName(name string) bool {
	if name == "" || len(name) > 40 || strings.TrimSpace(name) != name {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune(" &-',.", r):
		default:
			return false
		}
	}
	return true
}

// validTCC is an IRIS Transmitter Control Code: five letters and digits, starting with D.
func validTCC(tcc string) bool {
	if len(tcc) != 5 || tcc[0] != 'D' {
		return false
	}
	for _, r := range tcc {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// validZIP is a US ZIP code, five digits or ZIP+4.
func validZIP(zip string) bool {
	z := strings.ReplaceAll(zip, "-", "")
	return (len(z) == 5 || len(z) == 9) && payouts.AllDigits(z)
}

// Validate names every problem of the returns as an IRIS file: the payer's TIN and the TCC
// configured, each payee's TIN and name, the address a return is mailed to, and amounts.
func Validate(returns []Return, tcc string) []Problem {
	var out []Problem
	if !validTCC(tcc) {
		out = append(out, Problem{Field: "tcc", Reason: "must be the 5-character IRIS Transmitter Control Code (--iris-tcc), starting with D"})
	}
	if len(returns) == 0 {
		return append(out, Problem{Field: "returns", Reason: "none to file: generate the year's forms first"})
	}
	payer := returns[0].Payer
	if !validTIN(payer.TIN) {
		out = append(out, Problem{Field: "payer.tin", Reason: "must be the payer's 9-digit EIN (app compliance)"})
	}
	if !validName(payer.Name) {
		out = append(out, Problem{Field: "payer.name", Reason: "must be 1 to 40 letters, digits, spaces or & - ' , ."})
	}
	for _, r := range returns {
		add := func(field, reason string) { out = append(out, Problem{FormID: r.ID, Field: field, Reason: reason}) }
		if !validTIN(r.Payee.TIN) {
			add("payee.tin", "must be a valid 9-digit SSN, ITIN or EIN")
		}
		if !validName(r.Payee.Name) {
			add("payee.name", "must be 1 to 40 letters, digits, spaces or & - ' , .")
		}
		a := r.Payee.Address
		if strings.TrimSpace(a.Line1) == "" || strings.TrimSpace(a.City) == "" {
			add("payee.address", "needs a street and a city")
		}
		if usAddress(a.Country) && (len(a.State) != 2 || !validZIP(a.Postcode)) {
			add("payee.address", "a US address needs a 2-letter state and a 5- or 9-digit ZIP code")
		}
		switch {
		case r.Amount < 0:
			add("amount", "must not be negative")
		case r.Amount == 0 && r.Status != payouts.Form1099Voided:
			add("amount", "must be more than 0 on a form that is not voided")
		}
	}
	return out
}

func usAddress(country string) bool {
	c := strings.ToUpper(strings.TrimSpace(country))
	return c == "US" || c == "USA" || c == "UNITED STATES"
}

// IRISError is a file refused: every problem found, by form.
type IRISError struct{ Problems []Problem }

func (e *IRISError) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = p.String()
	}
	return "the IRIS file has problems: " + strings.Join(s, "; ")
}

// IRISCSV is the 1099-NEC upload for the IRIS Taxpayer Portal, one row per return, after every
// return passed Validate; otherwise an *IRISError naming each problem. Corrections (corrected
// and voided forms) are filed apart from originals, so a file holds returns of one kind: the
// caller picks them.
func IRISCSV(returns []Return, tcc string) ([]byte, error) {
	if problems := Validate(returns, tcc); len(problems) > 0 {
		return nil, &IRISError{Problems: problems}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(IRISColumns); err != nil {
		return nil, err
	}
	for _, r := range returns {
		row := make([]string, 0, len(IRISColumns))
		corrected, tinType := "", "SSN"
		if r.corrected() {
			corrected = "X"
		}
		if r.Payee.Business {
			tinType = "EIN"
		}
		p, a := r.Payer, r.Payer.Address
		row = append(row, "1099-NEC", strconv.Itoa(r.Year), corrected,
			"EIN", p.TIN, p.Name, a.Line1, a.Line2, a.City, a.State, a.Zip, a.Country, p.Phone)
		pa := r.Payee.Address
		row = append(row, tinType, r.Payee.TIN, r.Payee.Name, pa.Line1, pa.Line2, pa.City, pa.State, pa.Postcode, pa.Country,
			r.ID, "", amount(r.Amount), "", "", "", "", "", "")
		if len(row) != len(IRISColumns) {
			return nil, fmt.Errorf("taxform: IRIS row of %d fields, want %d", len(row), len(IRISColumns))
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// amount writes cents as dollars with exactly two decimals and no separators: whole cents, as
// the IRS takes them.
func amount(m payouts.Money) string {
	return fmt.Sprintf("%d.%02d", int64(m)/100, int64(m)%100)
}
