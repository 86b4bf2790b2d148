package client_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// taxYearOverAPI pays two payees over the API in 2026, one at the threshold and one just under,
// through the sandbox rail, and sets the app's compliance details: the payer's block.
func taxYearOverAPI(t *testing.T, tcc string) (*servicetest.Env, *client.Client, map[string]*payouts.User) {
	t.Helper()
	env, c := startService(t, servicetest.WithConfig(func(cfg *payoutd.Config) { cfg.WorkerInterval, cfg.IRISTCC = -1, tcc }))
	env.Clock.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	ctx := context.Background()
	if _, err := c.SetAppCompliance(ctx, env.AppID, servicetest.Payer()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Deposit(ctx, env.AppID, payouts.DepositRequest{Amount: 10_000_00}); err != nil {
		t.Fatal(err)
	}
	users := map[string]*payouts.User{}
	for i, p := range []struct {
		who, first string
		amount     int64
	}{{"at", "Abe", 2000_00}, {"under", "Una", 1999_99}} {
		u, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: p.first, LastName: "Payee",
			Email: p.who + "@example.com", CountryCode: "1", PhoneNumber: "415555010" + string(rune('0'+i))})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SubmitCompliance(ctx, u.ID, payouts.ComplianceRequest{W9: &payouts.W9{EntityType: payouts.EntityIndividual,
			FirstName: p.first, LastName: "Payee", DateOfBirth: "1990-01-02", TIN: "40112345" + string(rune('1'+i)),
			Address: payouts.Address{Line1: "12 Elm St", City: "Dallas", State: "TX", Country: "US", Postcode: "75201"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: p.who + "@example.com"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: u.ID, Amount: p.amount, Platform: payouts.PlatformPayPal, Fund: true}); err != nil {
			t.Fatal(err)
		}
		users[p.who] = u
	}
	env.Clock.Advance(time.Minute)
	if _, err := env.Service.SettleDue(ctx, 100); err != nil {
		t.Fatal(err)
	}
	return env, c, users
}

// TestContractTaxForms reads a year over the API with the Go client: the payees' totals, the
// forms generated, a Copy B, the ZIP and the IRIS file; and the refusals: a bad year, an IRIS
// file without a TCC configured.
func TestContractTaxForms(t *testing.T) {
	ctx := context.Background()
	_, c, users := taxYearOverAPI(t, "DG5BW")
	payees, err := c.TaxPayees(ctx, 2026)
	if err != nil || len(payees) != 2 || payees[0].UserID != users["at"].ID || payees[0].Amount != 2000_00 ||
		!payees[0].Reportable || payees[1].Amount != 1999_99 || payees[1].Reportable {
		t.Fatalf("payees %+v (%v)", payees, err)
	}
	one, err := c.UserTaxYear(ctx, users["under"].ID, 2026)
	if err != nil || *one != payees[1] {
		t.Errorf("one payee %+v (%v), want %+v", one, err, payees[1])
	}
	_, err = c.UserTaxYear(ctx, users["under"].ID, 26)
	wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "year")

	run, err := c.GenerateTaxForms(ctx, 2026)
	if err != nil || len(run.Written) != 1 || run.Written[0].UserID != users["at"].ID || run.Written[0].Status != payouts.Form1099Issued {
		t.Fatalf("run %+v (%v)", run, err)
	}
	forms, err := c.TaxForms(ctx, 2026, users["at"].ID)
	if err != nil || len(forms) != 1 || forms[0].ID != run.Written[0].ID || forms[0].Payee.TINLast4 != "3451" || forms[0].Payer.TIN != "**-***4321" {
		t.Errorf("the payee's forms %+v (%v)", forms, err)
	}
	if all, err := c.TaxForms(ctx, 2026, ""); err != nil || len(all) != 1 {
		t.Errorf("the year's forms %+v (%v)", all, err)
	}
	pdf, err := c.TaxFormPDF(ctx, forms[0].ID)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("copy B starts %q (%v)", pdf[:min(len(pdf), 8)], err)
	}
	if zip, err := c.TaxFormsZIP(ctx, 2026, true); err != nil || !bytes.HasPrefix(zip, []byte("PK")) {
		t.Errorf("zip (%v)", err)
	}
	iris, err := c.IRISFile(ctx, 2026, false)
	if err != nil || !strings.Contains(string(iris), ",2000.00,") || strings.Count(string(iris), "\r\n") != 2 {
		t.Errorf("IRIS file %q (%v)", iris, err)
	}
	_, err = c.TaxFormPDF(ctx, "01a2259e-d15d-73b6-8871-68c78d5e8690")
	wantError(t, err, http.StatusNotFound, payouts.ENotFound)
}

// TestContractIRISFileRefused is the IRIS file of a service with no TCC configured: a 400 naming
// it, and no file.
func TestContractIRISFileRefused(t *testing.T) {
	ctx := context.Background()
	_, c, _ := taxYearOverAPI(t, "")
	if _, err := c.GenerateTaxForms(ctx, 2026); err != nil {
		t.Fatal(err)
	}
	iris, err := c.IRISFile(ctx, 2026, false)
	wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "tcc")
	if iris != nil {
		t.Errorf("a refused file came with %q", iris)
	}
}
