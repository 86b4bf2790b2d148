package service_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// taxAddress is a payee's address on their W-9.
var taxAddress = payouts.Address{Line1: "12 Elm St", City: "Austin", State: "TX", Country: "US", Postcode: "73301"}

// w9 is a W-9 of an individual with tin.
func w9(first, last, tin string) *payouts.ComplianceRequest {
	return &payouts.ComplianceRequest{W9: &payouts.W9{EntityType: payouts.EntityIndividual, FirstName: first, LastName: last,
		DateOfBirth: "1990-04-05", TIN: tin, Address: taxAddress}}
}

// w8ben is a foreign person's form.
func w8ben(name string) *payouts.ComplianceRequest {
	return &payouts.ComplianceRequest{W8BEN: &payouts.W8BEN{Name: name, CitizenshipCountry: "DE", DateOfBirth: "1988-02-03",
		TIN: "DE12345", Address: payouts.Address{Line1: "Hauptstr. 1", City: "Berlin", State: "BE", Country: "DE", Postcode: "10115"},
		Signature: payouts.Signature{Consent: true, Name: name, Email: "klaus@example.com"}}}
}

// payee makes a user with a PayPal method and, when form is set, that tax form on file.
func (e *env) taxPayee(t testing.TB, first, last string, n int, form *payouts.ComplianceRequest) *payouts.User {
	t.Helper()
	u := e.payee(t, first, last, fmt.Sprintf("payee%d@example.com", n), fmt.Sprintf("415555%04d", n))
	if form != nil {
		if err := e.svc.SubmitCompliance(e.ctx, e.app, u.ID, *form); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

// returnPayout has the rail give a completed payout's money back.
func (e *env) returnPayout(t testing.TB, id string) {
	t.Helper()
	tr := e.transfer(t, id)
	if err := e.svc.ReportRailOutcome(e.ctx, payouts.PlatformPayPal, service.RailReport{TransferID: id,
		ExternalID: tr.ExternalData.ExternalID, Outcome: service.RailOutcome{Returned: true, Reason: "account closed"}}); err != nil {
		t.Fatal(err)
	}
	if got := e.transfer(t, id); got.Status != payouts.TransferFailed {
		t.Fatalf("returned payout is %s, want failed", got.Status)
	}
}

// taxYearScenario is a year of payouts around the $2,000 threshold of 2026: payees just under,
// at and over it, a returned payout, a tax-exempt one, fees paid by either party, a payee without
// a TIN, a W-8BEN payee, and a payout made on December 31 that settled in the new year. It
// returns the payees by name.
func taxYearScenario(t *testing.T, e *env) map[string]*payouts.User {
	t.Helper()
	e.clock.Set(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC))
	p := map[string]*payouts.User{
		"under":   e.taxPayee(t, "Una", "Under", 1, w9("Una", "Under", "111-22-3331")),
		"at":      e.taxPayee(t, "Abe", "At", 2, w9("Abe", "At", "111223332")),
		"over":    e.taxPayee(t, "Ora", "Over", 3, w9("Ora", "Over", "111223333")),
		"notin":   e.taxPayee(t, "Nat", "Notin", 4, nil),
		"foreign": e.taxPayee(t, "Klaus", "Fremd", 5, w8ben("Klaus Fremd")),
	}
	e.payOut(t, p["under"].ID, fundedPayout{amount: 1999_99})
	// The user pays the 25-cent fee out of this one: box 1 is the gross 1,500.00.
	e.payOut(t, p["at"].ID, fundedPayout{amount: 1500_00, feeParty: payouts.FeePartyUser})
	e.payOut(t, p["at"].ID, fundedPayout{amount: 500_00, feeParty: payouts.FeePartyPlatform})
	e.payOut(t, p["over"].ID, fundedPayout{amount: 2000_01})
	back := e.payOut(t, p["over"].ID, fundedPayout{amount: 900_00})
	e.payOut(t, p["over"].ID, fundedPayout{amount: 700_00, taxExempt: true})
	e.payOut(t, p["notin"].ID, fundedPayout{amount: 2100_00})
	e.payOut(t, p["foreign"].ID, fundedPayout{amount: 3000_00})
	e.settle(t, settleDelay)
	e.clock.Advance(24 * time.Hour)
	e.returnPayout(t, back.ID)
	// Made in 2026, settled (paid) in 2027.
	e.clock.Set(time.Date(2026, 12, 31, 23, 59, 58, 0, time.UTC))
	e.payOut(t, p["under"].ID, fundedPayout{amount: 50_00})
	e.settle(t, settleDelay)
	return p
}

// TestReportableTotals checks box 1 of every payee of a test year to the cent, who is due a
// form, and who is missing a TIN, on both engines.
func TestReportableTotals(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100_000_00)
		p := taxYearScenario(t, e)
		want := []struct {
			who                    string
			amount                 payouts.Money
			taxForm                string
			reportable, missingTIN bool
		}{
			{"at", 2000_00, payouts.TaxFormW9, true, false},
			{"foreign", 3000_00, payouts.TaxFormW8BEN, false, false},
			{"notin", 2100_00, "", true, true},
			{"over", 2000_01, payouts.TaxFormW9, true, false},
			{"under", 1999_99, payouts.TaxFormW9, false, false},
		}
		got, err := e.svc.ReportableTotals(e.ctx, e.app, 2026)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("2026 has %d payees, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			t.Run(w.who, func(t *testing.T) {
				g := got[i]
				if g.UserID != p[w.who].ID || g.Amount != w.amount || g.TaxForm != w.taxForm || g.Threshold != 2000_00 ||
					g.Reportable != w.reportable || g.MissingTIN != w.missingTIN {
					t.Errorf("got %+v, want %s: amount %d, form %q, reportable %v, missing TIN %v",
						g, p[w.who].ID, w.amount, w.taxForm, w.reportable, w.missingTIN)
				}
				one, err := e.svc.ReportableTotal(e.ctx, e.app, p[w.who].ID, 2026)
				if err != nil || *one != g {
					t.Errorf("one payee's total %+v (%v), want %+v", one, err, g)
				}
			})
		}
		next, err := e.svc.ReportableTotal(e.ctx, e.app, p["under"].ID, 2027)
		if err != nil || next.Amount != 50_00 || next.Reportable {
			t.Errorf("2027 total of the payout settled on New Year's Day: %+v (%v), want 50.00, not reportable", next, err)
		}
		if _, err := e.svc.ReportableTotals(e.ctx, e.app, 26); payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Errorf("year 26: %v, want invalid input", err)
		}
	})
}

// TestReportableTotalsMatchTransfers is a property: for random years of payouts (funded or not,
// fee paid by either party, settled, failed on their rail, returned after settling, tax exempt,
// settled on either side of New Year), each payee's box 1 read from the ledger is the sum of the
// amounts of the payouts the transfers list shows completed in that year (dated by their
// completion in their history) that were not marked tax exempt.
func TestReportableTotalsMatchTransfers(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
				e := newEnvOn(t, dsn, nil, 1_000_000_00)
				rng := rand.New(rand.NewPCG(seed, 49))
				users := []*payouts.User{
					e.taxPayee(t, "A", "One", int(seed*10+1), w9("A", "One", "123456781")),
					e.taxPayee(t, "B", "Two", int(seed*10+2), w9("B", "Two", "123456782")),
					e.taxPayee(t, "C", "Three", int(seed*10+3), w9("C", "Three", "123456783")),
				}
				exempt := map[string]bool{}
				e.clock.Set(time.Date(2026, 12, 31, 23, 58, 0, 0, time.UTC))
				var completed []string
				for range 30 {
					u := users[rng.IntN(len(users))]
					p := fundedPayout{amount: int64(100 + rng.IntN(50_000)), taxExempt: rng.IntN(6) == 0}
					if rng.IntN(2) == 0 {
						p.feeParty = payouts.FeePartyUser
					}
					var tr *payouts.Transfer
					if rng.IntN(3) == 0 { // from the wallet, filled by a balance transfer first
						if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: u.ID, Amount: -p.amount}); err != nil {
							t.Fatal(err)
						}
						var err error
						tr, err = e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: u.ID, Amount: p.amount,
							Platform: payouts.PlatformPayPal, PayoutFeeParty: p.feeParty, TaxExempt: p.taxExempt})
						if err != nil {
							t.Fatal(err)
						}
					} else {
						tr = e.payOut(t, u.ID, p)
					}
					exempt[tr.ID] = p.taxExempt
					switch rng.IntN(4) {
					case 0: // settles in the next step
					case 1:
						e.settle(t, settleDelay)
						completed = append(completed, tr.ID)
					case 2: // a return of an earlier payout
						e.settle(t, settleDelay)
						if len(completed) > 0 {
							i := rng.IntN(len(completed))
							e.returnPayout(t, completed[i])
							completed = append(completed[:i], completed[i+1:]...)
						}
					case 3:
						e.clock.Advance(time.Duration(rng.IntN(20)) * time.Second)
					}
				}
				e.settle(t, settleDelay)

				want := map[int]map[string]payouts.Money{2026: {}, 2027: {}}
				list, err := e.svc.ListTransfers(e.ctx, e.app, payouts.Page{Limit: 100}, payouts.TransferFilter{Type: payouts.TransferPayout})
				if err != nil {
					t.Fatal(err)
				}
				if list.HasMore {
					t.Fatal("more payouts than one page")
				}
				for _, tr := range list.Data {
					if tr.Status != payouts.TransferCompleted || exempt[tr.ID] {
						continue
					}
					for _, c := range e.transfer(t, tr.ID).StatusHistory {
						if c.Status == payouts.TransferCompleted {
							want[c.At.Time.Year()][*tr.UserID] += tr.Amount
						}
					}
				}
				for year, byUser := range want {
					got, err := e.svc.ReportableTotals(e.ctx, e.app, year)
					if err != nil {
						t.Fatal(err)
					}
					gotBy := map[string]payouts.Money{}
					for _, g := range got {
						gotBy[g.UserID] = g.Amount
					}
					if fmt.Sprint(gotBy) != fmt.Sprint(byUser) {
						t.Errorf("%d from the ledger %v, from the transfers list %v", year, gotBy, byUser)
					}
				}
			})
		}
	})
}

// setPayer gives the app the compliance details a 1099-NEC's payer block is made of.
func (e *env) setPayer(t testing.TB) {
	t.Helper()
	if _, err := e.svc.SetAppCompliance(e.ctx, e.app, e.app, servicetest.Payer()); err != nil {
		t.Fatal(err)
	}
}

// TestGenerateForms1099 generates the test year's forms: one issued to each payee due one with a
// W-9, none to the payee without a TIN (named as skipped) nor to the W-8BEN payee; generating
// again writes nothing; a payout returned after issuing corrects the form, and a W-8BEN given
// afterwards voids it. Both engines.
func TestGenerateForms1099(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100_000_00)
		_, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		wantCode(t, err, payouts.EUserInfoMissing) // no payer block yet
		p := taxYearScenario(t, e)
		e.setPayer(t)
		run, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		if err != nil {
			t.Fatal(err)
		}
		written := func(run *payouts.Forms1099Run) string {
			var s string
			for _, f := range run.Written {
				for who, u := range p {
					if u.ID == f.UserID {
						s += fmt.Sprintf("%s:%s:%d ", who, f.Status, f.Amount)
					}
				}
			}
			return s
		}
		if got, want := written(run), map[bool]string{true: "at:issued:200000 over:issued:200001 ", false: "over:issued:200001 at:issued:200000 "}[p["at"].ID < p["over"].ID]; got != want {
			t.Errorf("first run wrote %q, want %q", got, want)
		}
		if len(run.Skipped) != 1 || run.Skipped[p["notin"].ID] == "" {
			t.Errorf("skipped %v, want the payee without a TIN alone", run.Skipped)
		}
		forms, err := e.svc.Forms1099(e.ctx, e.app, 2026, p["over"].ID)
		if err != nil || len(forms) != 1 {
			t.Fatalf("forms of over: %+v (%v)", forms, err)
		}
		f := forms[0]
		if f.Payer.Name != "Acme Payments Inc" || f.Payer.TIN != "**-***4321" || f.Payee.Name != "Ora Over" ||
			f.Payee.TIN != "" || f.Payee.TINLast4 != "3333" || f.Payee.Address != taxAddress || f.Payer.Phone != "5125550100" {
			t.Errorf("form as read: %+v", f)
		}

		again, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		if err != nil || len(again.Written) != 0 {
			t.Errorf("second run wrote %q (%v), want nothing", written(again), err)
		}

		// A return after issuing: the last 2026 payout of over came back in 2027.
		e.clock.Set(time.Date(2027, 1, 10, 9, 0, 0, 0, time.UTC))
		list, err := e.svc.ListTransfers(e.ctx, e.app, payouts.Page{Limit: 100}, payouts.TransferFilter{UserID: p["at"].ID, Type: payouts.TransferPayout})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range list.Data {
			if tr.Amount == 500_00 {
				e.returnPayout(t, tr.ID)
			}
		}
		if err := e.svc.SubmitCompliance(e.ctx, e.app, p["over"].ID, *w8ben("Ora Over")); err != nil {
			t.Fatal(err)
		}
		run, err = e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := written(run), map[bool]string{true: "at:voided:0 over:voided:0 ", false: "over:voided:0 at:voided:0 "}[p["at"].ID < p["over"].ID]; got != want {
			t.Errorf("after a return below the threshold and a W-8BEN, the run wrote %q, want %q", got, want)
		}
		forms, err = e.svc.Forms1099(e.ctx, e.app, 2026, p["at"].ID)
		if err != nil || len(forms) != 2 || forms[1].Corrects != forms[0].ID || forms[1].Payee.Name != "Abe At" {
			t.Errorf("at's forms %+v (%v), want the issued one and its void naming it", forms, err)
		}
	})
}

// TestCorrectedForm1099 has a payout settle after the payee's form was issued: the next run
// writes a corrected form with the new total, naming the one it corrects.
func TestCorrectedForm1099(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100_000_00)
		e.setPayer(t)
		u := e.taxPayee(t, "Cy", "Change", 7, w9("Cy", "Change", "222334444"))
		e.payOut(t, u.ID, fundedPayout{amount: 2500_00})
		e.settle(t, settleDelay)
		first, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		if err != nil || len(first.Written) != 1 {
			t.Fatalf("first run %+v (%v)", first, err)
		}
		e.payOut(t, u.ID, fundedPayout{amount: 10_01})
		e.settle(t, settleDelay)
		run, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		if err != nil || len(run.Written) != 1 {
			t.Fatalf("second run %+v (%v)", run, err)
		}
		if c := run.Written[0]; c.Status != payouts.Form1099Corrected || c.Amount != 2510_01 || c.Corrects != first.Written[0].ID {
			t.Errorf("correction %+v, want corrected 2,510.01 naming %s", c, first.Written[0].ID)
		}
	})
}

// TestIRISFileOfYear exports the test year: refused without a TCC, naming it; then one row per
// form issued, and the corrections apart; a payee whose W-9 name IRIS would refuse is named by
// their form. The copies to mail leave out payees who consented to electronic delivery.
func TestIRISFileOfYear(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100_000_00)
		p := taxYearScenario(t, e)
		e.setPayer(t)
		if _, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026); err != nil {
			t.Fatal(err)
		}
		_, err := e.svc.IRISFile(e.ctx, e.app, 2026, false)
		if pe, ok := err.(*payouts.Error); !ok || pe.Code != payouts.EInvalidInput || pe.Fields["tcc"] == "" {
			t.Fatalf("without a TCC: %v, want the tcc named", err)
		}
		e.cfg.IRISTCC = "DG5BW"
		e.open(t)
		data, err := e.svc.IRISFile(e.ctx, e.app, 2026, false)
		if err != nil {
			t.Fatal(err)
		}
		if rows := strings.Count(string(data), "\r\n"); rows != 3 {
			t.Errorf("originals file has %d lines, want a header and 2:\n%s", rows, data)
		}
		if !strings.Contains(string(data), "111223333,Ora Over,") || !strings.Contains(string(data), ",2000.01,") {
			t.Errorf("file lacks over's row:\n%s", data)
		}
		corrections, err := e.svc.IRISFile(e.ctx, e.app, 2026, true)
		if err == nil || payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Errorf("corrections with none to file: %q, %v", corrections, err)
		}

		if err := e.svc.SubmitCompliance(e.ctx, e.app, p["at"].ID, *w9("Abe", "Ät", "111223332")); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC))
		e.payOut(t, p["at"].ID, fundedPayout{amount: 1_00})
		e.settle(t, settleDelay)
		run, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026)
		if err != nil || len(run.Written) != 1 {
			t.Fatalf("correction run %+v (%v)", run, err)
		}
		_, err = e.svc.IRISFile(e.ctx, e.app, 2026, true)
		if pe, ok := err.(*payouts.Error); !ok || pe.Fields["forms."+run.Written[0].ID+".payee.name"] == "" {
			t.Errorf("a name IRIS refuses: %v, want the form's payee.name named", err)
		}

		if err := e.svc.ConsentToElectronicForms(e.ctx, e.app, p["over"].ID); err != nil {
			t.Fatal(err)
		}
		all, err := e.svc.Forms1099ZIP(e.ctx, e.app, 2026, false)
		if err != nil {
			t.Fatal(err)
		}
		toMail, err := e.svc.Forms1099ZIP(e.ctx, e.app, 2026, true)
		if err != nil {
			t.Fatal(err)
		}
		if n, m := zipCount(t, all), zipCount(t, toMail); n != 2 || m != 1 {
			t.Errorf("zip of all %d copies, to mail %d; want 2 and 1", n, m)
		}
	})
}

func zipCount(t *testing.T, data []byte) int {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return len(z.File)
}

// TestWithdrawTaxConsent has a payee consent to electronic delivery and withdraw it: the
// withdrawal is recorded with its time, the payee is mailed again (their copy is in the ZIP of
// copies to mail), and consenting again clears it. Withdrawing without a consent is refused.
func TestWithdrawTaxConsent(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100_000_00)
		e.setPayer(t)
		u := e.taxPayee(t, "Wil", "Draw", 8, w9("Wil", "Draw", "222334445"))
		e.payOut(t, u.ID, fundedPayout{amount: 2500_00})
		e.settle(t, settleDelay)
		if _, err := e.svc.GenerateForms1099(e.ctx, e.app, 2026); err != nil {
			t.Fatal(err)
		}
		toMail := func() int {
			t.Helper()
			data, err := e.svc.Forms1099ZIP(e.ctx, e.app, 2026, true)
			if err != nil {
				t.Fatal(err)
			}
			return zipCount(t, data)
		}
		total := func() *payouts.ReportableTotal {
			t.Helper()
			total, err := e.svc.ReportableTotal(e.ctx, e.app, u.ID, 2026)
			if err != nil {
				t.Fatal(err)
			}
			return total
		}

		if err := e.svc.WithdrawElectronicFormsConsent(e.ctx, e.app, u.ID); payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Errorf("withdrawal without a consent: %v, want it refused", err)
		}
		if err := e.svc.ConsentToElectronicForms(e.ctx, e.app, u.ID); err != nil {
			t.Fatal(err)
		}
		if n := toMail(); n != 0 {
			t.Errorf("consented: %d copies to mail, want 0", n)
		}
		e.clock.Set(time.Date(2027, 1, 10, 9, 30, 0, 0, time.UTC))
		if err := e.svc.WithdrawElectronicFormsConsent(e.ctx, e.app, u.ID); err != nil {
			t.Fatal(err)
		}
		got := total()
		if got.Consented || got.ConsentWithdrawn == nil || !got.ConsentWithdrawn.Equal(e.clock.Now()) {
			t.Errorf("after withdrawal %+v, want not consented, withdrawn at %v", got, e.clock.Now())
		}
		if n := toMail(); n != 1 {
			t.Errorf("withdrawn: %d copies to mail, want 1", n)
		}
		if err := e.svc.WithdrawElectronicFormsConsent(e.ctx, e.app, u.ID); payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Errorf("a second withdrawal: %v, want it refused", err)
		}
		if err := e.svc.ConsentToElectronicForms(e.ctx, e.app, u.ID); err != nil {
			t.Fatal(err)
		}
		if got := total(); !got.Consented || got.ConsentWithdrawn != nil {
			t.Errorf("consented again %+v, want consented and no withdrawal", got)
		}
	})
}
