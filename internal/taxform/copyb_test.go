package taxform_test

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/taxform"
	"github.com/disburse/disburse/payouts"
)

// pdfText is the text pdftotext (Debian's poppler-utils) extracts from a PDF, its layout kept.
// Without pdftotext the test is skipped, unless CI=true, where it must run.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftotext is required in CI: apt-get install poppler-utils")
		}
		t.Skip("pdftotext not installed (poppler-utils)")
	}
	path := filepath.Join(t.TempDir(), "form.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

func sampleReturn(status string, amount payouts.Money) taxform.Return {
	return taxform.Return{ID: "01a2-form", Year: 2026, Status: status, Amount: amount,
		Payer: payouts.TaxPayer{Name: "Acme Payments Inc", TIN: "987654321", Phone: "5125550100",
			Address: payouts.PostalAddress{Line1: "1 Road", City: "Austin", State: "TX", Zip: "73301", Country: "US"}},
		Payee: payouts.TaxPayee{Name: "Ora Över", TIN: "111223333", TINLast4: "3333",
			Address: payouts.Address{Line1: "12 Elm St", Line2: "Apt 4", City: "Dallas", State: "TX", Country: "US", Postcode: "75201"}},
		Created: time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC)}
}

// TestCopyB reads a recipient's copy back as text: the payer's block and EIN in full, the
// payee's name and address with the TIN truncated to its last four (the full TIN nowhere), box 1,
// the year, the Copy B legends, and CORRECTED marked on a correction alone.
func TestCopyB(t *testing.T) {
	tests := []struct {
		name      string
		r         taxform.Return
		want      []string
		wantNot   []string
		corrected bool
	}{
		{"issued", sampleReturn(payouts.Form1099Issued, 2000_01), []string{"$ 2,000.01"}, nil, false},
		{"corrected", sampleReturn(payouts.Form1099Corrected, 12_345_67), []string{"$ 12,345.67"}, nil, true},
		{"voided", sampleReturn(payouts.Form1099Voided, 0), []string{"$ 0.00"}, nil, true},
		{"business payee", func() taxform.Return {
			r := sampleReturn(payouts.Form1099Issued, 2500_00)
			r.Payee.Business = true
			return r
		}(), []string{"**-***3333"}, []string{"***-**-3333"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pdf, err := taxform.CopyB(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			text := pdfText(t, pdf)
			flat := strings.Join(strings.Fields(text), " ")
			want := append([]string{"Acme Payments Inc", "1 Road", "Austin, TX 73301", "5125550100", "98-7654321",
				"Ora Över", "12 Elm St, Apt 4", "Dallas, TX 75201", "For calendar year 2026", "1099-NEC",
				"Nonemployee compensation", "Copy B For Recipient", "This is important tax information and is being furnished to the IRS",
				"(keep for your records)", "Instructions for Recipient", "01a2-form"}, tt.want...)
			if !tt.r.Payee.Business {
				want = append(want, "***-**-3333")
			}
			for _, w := range want {
				if !strings.Contains(flat, w) {
					t.Errorf("copy B lacks %q:\n%s", w, text)
				}
			}
			for _, w := range append([]string{"111223333", "111-22-3333", "11-1223333"}, tt.wantNot...) {
				if strings.Contains(flat, w) {
					t.Errorf("copy B shows %q", w)
				}
			}
			if got := strings.Contains(flat, "[X] CORRECTED"); got != tt.corrected {
				t.Errorf("CORRECTED marked %v, want %v", got, tt.corrected)
			}
		})
	}
}

// TestZIP holds one PDF per return, named by year, status and id, each a copy B.
func TestZIP(t *testing.T) {
	a, b := sampleReturn(payouts.Form1099Issued, 2000_00), sampleReturn(payouts.Form1099Corrected, 2100_00)
	b.ID = "01a3-form"
	data, err := taxform.ZIP([]taxform.Return{a, b})
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		pdf, _ := io.ReadAll(rc)
		rc.Close()
		if text := pdfText(t, pdf); !strings.Contains(text, "Copy B") {
			t.Errorf("%s is not a copy B:\n%s", f.Name, text)
		}
	}
	if got, want := strings.Join(names, " "), "1099-NEC-2026-issued-01a2-form.pdf 1099-NEC-2026-corrected-01a3-form.pdf"; got != want {
		t.Errorf("zip holds %s, want %s", got, want)
	}
}
