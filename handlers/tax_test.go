package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// taxHarness is a dashboard on a service whose app paid two payees in 2026 over the threshold,
// one with a W-9 and one without, with the payer's block set; tcc is the service's IRIS TCC.
func taxHarness(t *testing.T, tcc string) (*harness, map[string]*payouts.User) {
	t.Helper()
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) {
		c.IRISTCC, c.WorkerInterval = tcc, -1
	})}})
	ctx := context.Background()
	h.env.Clock.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	if _, err := h.payouts.SetAppCompliance(ctx, h.env.AppID, servicetest.Payer()); err != nil {
		t.Fatal(err)
	}
	h.deposit(10_000_00)
	users := map[string]*payouts.User{"tina": h.createUser("Tina", "Tax"), "nora": h.createUser("Nora", "Notin")}
	if err := h.payouts.SubmitCompliance(ctx, users["tina"].ID, payouts.ComplianceRequest{W9: &payouts.W9{
		EntityType: payouts.EntityIndividual, FirstName: "Tina", LastName: "Tax", DateOfBirth: "1990-01-02", TIN: "401123456",
		Address: payouts.Address{Line1: "12 Elm St", City: "Dallas", State: "TX", Country: "US", Postcode: "75201"}}}); err != nil {
		t.Fatal(err)
	}
	for who, amount := range map[string]int64{"tina": 2500_00, "nora": 2100_00} {
		h.payPalDefault(users[who])
		if _, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: users[who].ID, Amount: amount,
			Platform: payouts.PlatformPayPal, Fund: true}); err != nil {
			t.Fatal(err)
		}
	}
	h.env.Clock.Advance(time.Minute)
	if _, err := h.env.Service.SettleDue(ctx, 100); err != nil {
		t.Fatal(err)
	}
	return h, users
}

// TestTaxFormsPage is the year-end page: only admins and managers reach any of it; a manager
// sees who is due a form and who has no W-9, generates the forms (CSRF required), previews and
// downloads a Copy B, the ZIP and the IRIS file, and asks the payee without a W-9 for one
// through a flow with the compliance step; every generation, download and request is audited.
func TestTaxFormsPage(t *testing.T) {
	t.Parallel()
	h, users := taxHarness(t, "DG5BW")
	agents := map[dashstore.Role]*agent{}
	for _, role := range dashstore.Roles {
		agents[role], _ = h.signedIn(role)
	}
	for _, role := range dashstore.Roles {
		t.Run("role "+string(role), func(t *testing.T) {
			want := http.StatusForbidden
			if role == dashstore.RoleAdmin || role == dashstore.RoleManager {
				want = http.StatusOK
			}
			wantStatus(t, agents[role].get("/tax?year=2026"), want)
			if want == http.StatusForbidden {
				for _, path := range []string{"/tax/iris?year=2026", "/tax/copies?year=2026"} {
					wantStatus(t, agents[role].get(path), http.StatusForbidden)
				}
				wantStatus(t, agents[role].post("/tax/generate", url.Values{"year": {"2026"}}), http.StatusForbidden)
				wantStatus(t, agents[role].post("/tax/w9-requests", url.Values{"year": {"2026"}}), http.StatusForbidden)
				wantStatus(t, agents[role].post("/tax/delivery-offers", url.Values{"year": {"2026"}}), http.StatusForbidden)
			}
		})
	}

	m := agents[dashstore.RoleManager]
	res := m.get("/tax?year=2026")
	wantBody(t, res, `data-testid="tax-due"`, "Tina Tax", "$2,500.00", `data-testid="tax-missing"`, "Nora Notin", "$2,100.00", "No forms yet")

	wantStatus(t, m.postRaw("/tax/generate", url.Values{"year": {"2026"}}), http.StatusForbidden) // no CSRF token
	wantRedirect(t, m.post("/tax/generate", url.Values{"year": {"2026"}}), "/tax?year=2026")
	if got := h.auditActions("app", h.env.AppID); len(got) == 0 || got[0].Action != "tax.generate" ||
		!strings.Contains(got[0].Detail, "1 issued") {
		t.Errorf("audit after generating: %+v", got)
	}
	forms, err := h.payouts.TaxForms(context.Background(), 2026, "")
	if err != nil || len(forms) != 1 || forms[0].UserID != users["tina"].ID {
		t.Fatalf("forms %+v (%v)", forms, err)
	}
	id := forms[0].ID
	wantBody(t, m.get("/tax?year=2026"), `data-form="`+id+`"`, "/tax/forms/"+id+"/pdf?preview=1")

	for _, tc := range []struct {
		path, contentType, disposition, action string
	}{
		{"/tax/forms/" + id + "/pdf?preview=1", "application/pdf", "inline", "tax.preview"},
		{"/tax/forms/" + id + "/pdf", "application/pdf", "attachment", "tax.download"},
	} {
		res := m.get(tc.path)
		wantStatus(t, res, http.StatusOK)
		if res.Header.Get("Content-Type") != tc.contentType || !strings.HasPrefix(res.Header.Get("Content-Disposition"), tc.disposition) ||
			!strings.HasPrefix(res.body, "%PDF-") {
			t.Errorf("%s: %s, %s", tc.path, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
		}
		if got := h.auditActions("tax_form", id); len(got) == 0 || got[0].Action != tc.action {
			t.Errorf("%s audited as %+v, want %s", tc.path, got, tc.action)
		}
	}
	before := len(h.auditActions("app", h.env.AppID))
	zip := m.get("/tax/copies?year=2026")
	wantStatus(t, zip, http.StatusOK)
	iris := m.get("/tax/iris?year=2026")
	wantStatus(t, iris, http.StatusOK)
	if !strings.HasPrefix(zip.body, "PK") || !strings.Contains(iris.body, "401123456,Tina Tax,") {
		t.Errorf("zip %.4q, IRIS file %q", zip.body, iris.body)
	}
	if got := len(h.auditActions("app", h.env.AppID)); got != before+2 {
		t.Errorf("%d audit entries after the two downloads, want %d", got, before+2)
	}

	wantRedirect(t, m.post("/tax/w9-requests", url.Values{"year": {"2026"}}), "/tax?year=2026")
	flows, err := h.payouts.ListFlows(context.Background(), payouts.Page{Limit: 10}, payouts.FlowFilter{UserID: users["nora"].ID})
	if err != nil || len(flows.Data) != 1 || !slices.Equal(flows.Data[0].Steps, []string{payouts.StepCompliance}) {
		t.Fatalf("flows of the payee without a W-9: %+v (%v)", flows, err)
	}
	if got := h.auditActions("flow", flows.Data[0].ID); len(got) != 1 || got[0].Action != "tax.w9_request" {
		t.Errorf("W-9 request audited as %+v", got)
	}
	if tina, _ := h.payouts.ListFlows(context.Background(), payouts.Page{Limit: 10}, payouts.FlowFilter{UserID: users["tina"].ID}); len(tina.Data) != 0 {
		t.Errorf("the payee with a W-9 was asked for one: %+v", tina.Data)
	}

	// The payee with a form and no consent is offered electronic delivery; the one without a
	// form is not.
	wantBody(t, m.get("/tax?year=2026"), `data-testid="tax-mail"`, "Offer each electronic delivery")
	wantRedirect(t, m.post("/tax/delivery-offers", url.Values{"year": {"2026"}}), "/tax?year=2026")
	offered, err := h.payouts.ListFlows(context.Background(), payouts.Page{Limit: 10}, payouts.FlowFilter{UserID: users["tina"].ID})
	if err != nil || len(offered.Data) != 1 || !slices.Equal(offered.Data[0].Steps, []string{payouts.StepTaxForms}) {
		t.Fatalf("flows of the payee to mail: %+v (%v)", offered, err)
	}
	if got := h.auditActions("flow", offered.Data[0].ID); len(got) != 1 || got[0].Action != "tax.delivery_offer" {
		t.Errorf("delivery offer audited as %+v", got)
	}
	if nora, _ := h.payouts.ListFlows(context.Background(), payouts.Page{Limit: 10}, payouts.FlowFilter{UserID: users["nora"].ID}); len(nora.Data) != 1 {
		t.Errorf("the payee without a form was offered delivery: %+v", nora.Data)
	}
}

// TestTaxIRISRefusedOnPage has the IRIS file refused (no TCC configured): the page comes back
// with the problem named and no file, and nothing is audited as downloaded.
func TestTaxIRISRefusedOnPage(t *testing.T) {
	t.Parallel()
	h, _ := taxHarness(t, "")
	m, _ := h.signedIn(dashstore.RoleAdmin)
	wantRedirect(t, m.post("/tax/generate", url.Values{"year": {"2026"}}), "/tax?year=2026")
	before := len(h.auditActions("app", h.env.AppID))
	wantRedirect(t, m.get("/tax/iris?year=2026"), "/tax?year=2026")
	wantBody(t, m.get("/tax?year=2026"), "The IRIS file was not made", "tcc")
	if got := len(h.auditActions("app", h.env.AppID)); got != before {
		t.Errorf("a refused file was audited: %d entries, want %d", got, before)
	}
}

// TestTaxConsentWithdrawnOnPage has the payee with a form consent to electronic delivery and then
// withdraw it: consented, they are not to mail; withdrawn, they are back to mail with the
// withdrawal shown by its time.
func TestTaxConsentWithdrawnOnPage(t *testing.T) {
	h, users := taxHarness(t, "DG5BW")
	m, _ := h.signedIn(dashstore.RoleManager)
	wantRedirect(t, m.post("/tax/generate", url.Values{"year": {"2026"}}), "/tax?year=2026")
	ctx := context.Background()
	if err := h.env.Service.ConsentToElectronicForms(ctx, h.env.AppID, users["tina"].ID); err != nil {
		t.Fatal(err)
	}
	if body := m.get("/tax?year=2026").body; strings.Contains(body, `data-testid="tax-mail"`) {
		t.Errorf("the consented payee is still to mail")
	}
	h.env.Clock.Advance(time.Hour)
	withdrawn := h.env.Clock.Now()
	if err := h.env.Service.WithdrawElectronicFormsConsent(ctx, h.env.AppID, users["tina"].ID); err != nil {
		t.Fatal(err)
	}
	wantBody(t, m.get("/tax?year=2026"), `data-testid="tax-mail"`, `data-testid="consent-withdrawn"`,
		`datetime="`+withdrawn.UTC().Format(time.RFC3339)+`"`)
}

// TestNeedsAttentionOwedW9: the Overview counts the payees paid over this year's threshold with
// no W-9 on file, linked to the Tax forms page for those who may open it and named without a
// link for those who may not.
func TestNeedsAttentionOwedW9(t *testing.T) {
	t.Parallel()
	h, _ := taxHarness(t, "DG5BW")
	for _, tc := range []struct {
		role dashstore.Role
		link bool
	}{
		{dashstore.RoleManager, true},
		{dashstore.RoleOperations, false},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			a, _ := h.signedIn(tc.role)
			page := a.get("/overview")
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, "Payees owing a W-9 for 2026", `data-testid="attention-owe-w9">1<`)
			if got := strings.Contains(page.body, `href="/tax?year=2026"`); got != tc.link {
				t.Errorf("linked to the Tax forms page: %v, want %v", got, tc.link)
			}
		})
	}
}
