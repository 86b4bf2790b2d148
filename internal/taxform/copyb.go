// Package taxform writes a year's 1099-NEC forms out: the recipient's Copy B as a PDF (a
// substitute form following IRS Publication 1179's rules for recipient statements), a ZIP of
// them for printing and mailing, and the file the IRS's IRIS Taxpayer Portal takes (iris.go).
// It reads nothing: the service gives it the forms, TINs in full.
package taxform

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/disburse/disburse/payouts"
)

// Return is one version of a payee's 1099-NEC with both TINs in full.
type Return struct {
	ID      string
	Year    int
	Status  string // payouts.Form1099Issued, Corrected or Voided
	Amount  payouts.Money
	Payer   payouts.TaxPayer
	Payee   payouts.TaxPayee
	Created time.Time
}

// corrected reports whether the form replaces an earlier one (a void is a correction to zero).
func (r Return) corrected() bool { return r.Status != payouts.Form1099Issued }

// TruncatedTIN is a payee's TIN as a recipient statement may show it (Publication 1179 and
// Treas. Reg. 301.6109-4): the first five digits replaced by asterisks, the last four shown.
func TruncatedTIN(tin string, business bool) string {
	if business {
		return "**-***" + payouts.Last4(tin)
	}
	return "***-**-" + payouts.Last4(tin)
}

// FormatEIN writes a nine-digit EIN as XX-XXXXXXX.
func FormatEIN(ein string) string {
	if len(ein) != 9 {
		return ein
	}
	return ein[:2] + "-" + ein[2:]
}

// The legends a recipient's Copy B must carry (Publication 1179, recipient statements).
const (
	legendCopyB     = "Copy B  For Recipient"
	legendImportant = "This is important tax information and is being furnished to the IRS. If you are required to " +
		"file a return, a negligence penalty or other sanction may be imposed on you if this income is taxable and " +
		"the IRS determines that it has not been reported."
	legendRecords = "(keep for your records)"
	legendAgency  = "Department of the Treasury - Internal Revenue Service"
)

// instructions are the recipient's instructions a substitute statement carries with it.
var instructions = []string{
	"Instructions for Recipient",
	"You received this form instead of Form W-2 because the payer did not consider you an employee and did not " +
		"withhold income tax or social security and Medicare tax.",
	"If you believe you are an employee and cannot get the payer to correct this form, report the amount shown in " +
		"box 1 on the line for \"Wages, salaries, tips, etc.\" of Form 1040, 1040-SR, or 1040-NR. You must also " +
		"complete Form 8919 and attach it to your return.",
	"If you are not an employee but the amount in box 1 is not self-employment (SE) income, report it on Schedule 1 " +
		"(Form 1040), line 8j.",
	"Recipient's taxpayer identification number (TIN). For your protection, this form may show only the last four " +
		"digits of your TIN. However, the issuer has reported your complete TIN to the IRS.",
	"Account number. May show an account or other unique number the payer assigned to distinguish your account.",
	"Box 1. Shows nonemployee compensation. If the amount in this box is SE income, report it on Schedule C or F " +
		"(Form 1040) if a sole proprietor, or on Form 1065 and Schedule K-1 (Form 1065) if a partnership, and the " +
		"recipient/partner completes Schedule SE (Form 1040).",
	"Box 4. Shows backup withholding. A payer must backup withhold on certain payments if you did not give your TIN " +
		"to the payer. See Form W-9 for information on backup withholding. Include this amount on your income tax " +
		"return as tax withheld.",
	"Future developments. For the latest information about developments related to Form 1099-NEC and its " +
		"instructions, such as legislation enacted after they were published, go to www.irs.gov/Form1099NEC.",
}

// CopyB is the recipient's copy of r as a one-page PDF.
func CopyB(r Return) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCreationDate(r.Created)
	pdf.SetModificationDate(r.Created)
	pdf.SetTitle(fmt.Sprintf("Form 1099-NEC %d Copy B", r.Year), true)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetMargins(12, 12, 12)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AddPage()

	text := func(x, y, w float64, size float64, style, s string) {
		pdf.SetFont("Helvetica", style, size)
		pdf.SetXY(x, y)
		pdf.MultiCell(w, size*0.45, tr(s), "", "L", false)
	}
	box := func(x, y, w, h float64, label string, lines ...string) {
		pdf.Rect(x, y, w, h, "D")
		text(x+1, y+1, w-2, 6.5, "", label)
		text(x+1, pdf.GetY()+1.5, w-2, 10, "B", strings.Join(lines, "\n"))
	}

	const left, top = 12.0, 14.0
	corrected := "[   ] CORRECTED (if checked)"
	if r.corrected() {
		corrected = "[X] CORRECTED"
	}
	text(left, top-4, 100, 8, "B", corrected)
	// The payer's block: name, street address, city, state, ZIP, and telephone number.
	a := r.Payer.Address
	payerAddress := []string{r.Payer.Name, a.Line1}
	if a.Line2 != "" {
		payerAddress = append(payerAddress, a.Line2)
	}
	payerAddress = append(payerAddress, strings.TrimSpace(a.City+", "+a.State+" "+a.Zip+" "+a.Country), "Tel. "+r.Payer.Phone)
	box(left, top, 100, 38, "PAYER'S name, street address, city or town, state or province, country, ZIP or foreign postal code, and telephone no.", payerAddress...)
	box(left, top+38, 50, 14, "PAYER'S TIN", FormatEIN(r.Payer.TIN))
	box(left+50, top+38, 50, 14, "RECIPIENT'S TIN", TruncatedTIN(r.Payee.TIN, r.Payee.Business))
	box(left, top+52, 100, 14, "RECIPIENT'S name", r.Payee.Name)
	pa := r.Payee.Address
	street := pa.Line1
	if pa.Line2 != "" {
		street += ", " + pa.Line2
	}
	box(left, top+66, 100, 14, "Street address (including apt. no.)", street)
	box(left, top+80, 100, 14, "City or town, state or province, country, and ZIP or foreign postal code",
		strings.TrimSpace(pa.City+", "+pa.State+" "+pa.Postcode+" "+pa.Country))
	box(left, top+94, 100, 14, "Account number (see instructions)", r.ID)

	right := left + 100
	box(right, top, 46, 24, "OMB No. 1545-0116\nForm 1099-NEC", fmt.Sprintf("For calendar year %d", r.Year))
	text(right+47, top+2, 45, 12, "B", "Nonemployee\nCompensation")
	box(right, top+24, 92, 16, "1 Nonemployee compensation", "$ "+dollars(r.Amount))
	box(right, top+40, 92, 14, "2 Payer made direct sales totaling $5,000 or more of consumer products to recipient for resale", "[   ]")
	box(right, top+54, 92, 12, "3", "")
	box(right, top+66, 92, 14, "4 Federal income tax withheld", "$ 0.00")
	box(right, top+80, 31, 28, "5 State tax withheld", "")
	box(right+31, top+80, 31, 28, "6 State/Payer's state no.", "")
	box(right+62, top+80, 30, 28, "7 State income", "")

	text(right+47, top+14, 45, 9, "B", legendCopyB)
	text(left, top+112, 192, 8, "B", legendImportant)
	text(left, top+124, 192, 8, "", "Form 1099-NEC   "+legendRecords+"   www.irs.gov/Form1099NEC   "+legendAgency)

	y := top + 136.0
	for i, p := range instructions {
		style, size := "", 7.5
		if i == 0 {
			style, size = "B", 9
		}
		text(left, y, 192, size, style, p)
		y = pdf.GetY() + 1.5
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("taxform: copy B of %s: %w", r.ID, err)
	}
	return buf.Bytes(), nil
}

// dollars writes cents as a dollar amount with two decimals and thousands separators.
func dollars(m payouts.Money) string { return strings.TrimPrefix(m.String(), "$") }

// FileName is the name a form's PDF has in a download and in the ZIP.
func FileName(r Return) string {
	return fmt.Sprintf("1099-NEC-%d-%s-%s.pdf", r.Year, r.Status, r.ID)
}

// ZIP is every return's Copy B in one archive, for printing and mailing.
func ZIP(returns []Return) ([]byte, error) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, r := range returns {
		pdf, err := CopyB(r)
		if err != nil {
			return nil, err
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: FileName(r), Method: zip.Deflate, Modified: r.Created})
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(pdf); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
