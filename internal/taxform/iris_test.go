package taxform_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/taxform"
	"github.com/disburse/disburse/payouts"
)

// TestIRISCSV reads an IRIS file back column by column: the header is the template's columns in
// order, and each row's fields are the form's, under the right column.
func TestIRISCSV(t *testing.T) {
	a := sampleReturn(payouts.Form1099Issued, 2000_01)
	a.Payee.Name = "Ora Over"
	b := sampleReturn(payouts.Form1099Corrected, 12_345_67)
	b.ID, b.Payee.Business, b.Payee.Name, b.Payee.TIN = "01a3-form", true, "Bright Pixel Studio LLC", "981234567"
	data, err := taxform.IRISCSV([]taxform.Return{a, b}, "DG5BW")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rows[0], "|"), strings.Join(taxform.IRISColumns, "|"); got != want {
		t.Fatalf("header %s, want %s", got, want)
	}
	want := []map[string]string{{
		"Form Type": "1099-NEC", "Tax Year": "2026", "Corrected Return Indicator": "", "Payer TIN Type": "EIN",
		"Payer TIN": "987654321", "Payer Name": "Acme Payments Inc", "Payer Address Line 1": "1 Road", "Payer City": "Austin",
		"Payer State": "TX", "Payer ZIP Code": "73301", "Payer Country": "US", "Payer Phone Number": "5125550100",
		"Recipient TIN Type": "SSN", "Recipient TIN": "111223333", "Recipient Name": "Ora Over",
		"Recipient Address Line 1": "12 Elm St", "Recipient Address Line 2": "Apt 4", "Recipient City": "Dallas",
		"Recipient State": "TX", "Recipient ZIP Code": "75201", "Recipient Country": "US", "Account Number": "01a2-form",
		"Box 1 Nonemployee Compensation": "2000.01", "Box 4 Federal Income Tax Withheld": "",
	}, {
		"Corrected Return Indicator": "X", "Recipient TIN Type": "EIN", "Recipient TIN": "981234567",
		"Recipient Name": "Bright Pixel Studio LLC", "Account Number": "01a3-form", "Box 1 Nonemployee Compensation": "12345.67",
	}}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and 2", len(rows))
	}
	for i, w := range want {
		row := rows[i+1]
		if len(row) != len(taxform.IRISColumns) {
			t.Fatalf("row %d has %d fields, want %d", i+1, len(row), len(taxform.IRISColumns))
		}
		for c, col := range taxform.IRISColumns {
			if v, ok := w[col]; ok && row[c] != v {
				t.Errorf("row %d, column %d %q = %q, want %q", i+1, c+1, col, row[c], v)
			}
		}
	}
}

// TestIRISInvalid refuses a file with a bad record, naming the form, the field and the reason;
// nothing is written.
func TestIRISInvalid(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *taxform.Return)
		tcc    string
		field  string
	}{
		{"no TCC", func(*taxform.Return) {}, "", "tcc"},
		{"TCC of FIRE's form", func(*taxform.Return) {}, "12345", "tcc"},
		{"payer without EIN", func(r *taxform.Return) { r.Payer.TIN = "" }, "DG5BW", "payer.tin"},
		{"payee TIN short", func(r *taxform.Return) { r.Payee.TIN = "11122333" }, "DG5BW", "payee.tin"},
		{"payee TIN all one digit", func(r *taxform.Return) { r.Payee.TIN = "999999999" }, "DG5BW", "payee.tin"},
		{"payee without TIN", func(r *taxform.Return) { r.Payee.TIN = "" }, "DG5BW", "payee.tin"},
		{"payee name empty", func(r *taxform.Return) { r.Payee.Name = "" }, "DG5BW", "payee.name"},
		{"payee name with a character IRIS refuses", func(r *taxform.Return) { r.Payee.Name = "Ora Över" }, "DG5BW", "payee.name"},
		{"payee name too long", func(r *taxform.Return) { r.Payee.Name = strings.Repeat("a", 41) }, "DG5BW", "payee.name"},
		{"US ZIP malformed", func(r *taxform.Return) { r.Payee.Address.Postcode = "7520" }, "DG5BW", "payee.address"},
		{"zero on an issued form", func(r *taxform.Return) { r.Amount = 0 }, "DG5BW", "amount"},
		{"negative amount", func(r *taxform.Return) { r.Amount = -1 }, "DG5BW", "amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleReturn(payouts.Form1099Issued, 2000_00)
			r.Payee.Name = "Ora Over"
			tt.change(&r)
			data, err := taxform.IRISCSV([]taxform.Return{r}, tt.tcc)
			var refused *taxform.IRISError
			if !errors.As(err, &refused) || data != nil {
				t.Fatalf("file %q, error %v; want it refused", data, err)
			}
			if len(refused.Problems) != 1 || refused.Problems[0].Field != tt.field || refused.Problems[0].Reason == "" {
				t.Errorf("problems %+v, want one of %s", refused.Problems, tt.field)
			}
			wantForm := r.ID // a payee's or an amount's problem is its form's; the file's are no form's
			if tt.field == "tcc" || strings.HasPrefix(tt.field, "payer.") {
				wantForm = ""
			}
			if refused.Problems[0].FormID != wantForm {
				t.Errorf("problem names form %q, want %q", refused.Problems[0].FormID, wantForm)
			}
		})
	}
	if _, err := taxform.IRISCSV([]taxform.Return{func() taxform.Return {
		r := sampleReturn(payouts.Form1099Voided, 0)
		r.Payee.Name = "Ora Over"
		return r
	}()}, "DG5BW"); err != nil {
		t.Errorf("a voided form of 0.00: %v", err)
	}
}
