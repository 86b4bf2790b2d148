package hosted_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// taxYear gives the app a payer block and pays the user past the 2026 threshold with a W-9 on
// file, then generates the year's forms; it returns the payee's form.
func taxYear(t *testing.T, env *servicetest.Env, u *payouts.User, tin string) payouts.Form1099 {
	t.Helper()
	env.Clock.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	if _, err := env.Service.SetAppCompliance(ctx, env.AppID, env.AppID, servicetest.Payer()); err != nil {
		t.Fatal(err)
	}
	if err := env.Service.SubmitCompliance(ctx, env.AppID, u.ID, payouts.ComplianceRequest{W9: &payouts.W9{
		EntityType: payouts.EntityIndividual, FirstName: u.FirstName, LastName: u.LastName, DateOfBirth: "1990-01-02", TIN: tin,
		Address: payouts.Address{Line1: "12 Elm St", City: "Dallas", State: "TX", Country: "US", Postcode: "75201"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.AddPayoutMethod(ctx, env.AppID, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: u.Email}); err != nil {
		t.Fatal(err)
	}
	fund(t, env, 3000_00)
	if _, err := env.Service.CreatePayout(ctx, env.AppID, payouts.CreatePayoutRequest{UserID: u.ID, Amount: 2500_00,
		Platform: payouts.PlatformPayPal, Fund: true}); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(time.Minute)
	if _, err := env.Service.SettleDue(ctx, 100); err != nil {
		t.Fatal(err)
	}
	run, err := env.Service.GenerateForms1099(ctx, env.AppID, 2026)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range run.Written {
		if f.UserID == u.ID {
			return f
		}
	}
	t.Fatalf("no form for %s in %+v", u.ID, run)
	return payouts.Form1099{}
}

// taxFlow is a service on engine whose payee Ada, at 4155550100, has a 1099-NEC form for 2026
// and a flow with the tax-forms step.
func taxFlow(t *testing.T, engine []servicetest.Option) (*servicetest.Env, *payouts.User, payouts.Form1099, payouts.Flow) {
	t.Helper()
	env := start(t, engine...)
	u := createUser(t, env, "Ada", "Lovelace", "ada@example.com", "4155550100")
	form := taxYear(t, env, u, "401123456")
	return env, u, form, createFlow(t, env, map[string]any{"steps": []string{payouts.StepTaxForms}, "user_id": u.ID})
}

// TestTaxFormsStep is the hosted page of a payee's 1099 forms, on both engines: the payee proves
// who they are with the code texted to them, as on every flow; sees no form before consenting;
// consents (refused without the box ticked); downloads their Copy B by a post carrying the
// session; cannot download another payee's form, nor any without a session; and finishes.
func TestTaxFormsStep(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, engine []servicetest.Option) {
		env, u, form, flow := taxFlow(t, engine)

		s := signIn(t, env, flow.ID, ada("4155550100"))
		p := openAs(t, env, flow.ID, s)
		p.Has(t, "Your tax forms", "I agree to receive my tax forms electronically.")
		if strings.Contains(p.Body, form.ID) {
			t.Errorf("the form is offered before consent")
		}
		if got := post(t, env, "/f/"+flow.ID+"/tax-forms/pdf", withSession(s, url.Values{"form_id": {form.ID}})); got.Status != http.StatusForbidden {
			t.Errorf("download before consent: %d, want 403", got.Status)
		}
		refused := post(t, env, "/f/"+flow.ID+"/tax-forms", withSession(s, url.Values{}))
		if refused.FieldError("consent") == "" {
			t.Errorf("consent without the box: %d, no problem on consent\n%s", refused.Status, refused.Body)
		}
		done := post(t, env, "/f/"+flow.ID+"/tax-forms", withSession(s, url.Values{"consent": {"true"}}))
		if done.Status != http.StatusSeeOther {
			t.Fatalf("consent: %d\n%s", done.Status, done.Body)
		}
		total, err := env.Service.ReportableTotal(ctx, env.AppID, u.ID, 2026)
		if err != nil || !total.Consented {
			t.Errorf("consent not recorded: %+v (%v)", total, err)
		}
		p = openAs(t, env, flow.ID, s)
		p.Has(t, "Form 1099-NEC 2026", "$2,500.00", form.ID, "Download Copy B")

		pdf := post(t, env, "/f/"+flow.ID+"/tax-forms/pdf", withSession(s, url.Values{"form_id": {form.ID}}))
		if pdf.Status != http.StatusOK || pdf.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.Body, "%PDF-") {
			t.Fatalf("download: %d %s", pdf.Status, pdf.Header.Get("Content-Type"))
		}
		if got := post(t, env, "/f/"+flow.ID+"/tax-forms/pdf", url.Values{"form_id": {form.ID}}); got.Status == http.StatusOK {
			t.Errorf("a download without a session answered the form")
		}

		bob := createUser(t, env, "Bob", "Other", "bob@example.com", "4155550111")
		bobFlow := createFlow(t, env, map[string]any{"steps": []string{payouts.StepTaxForms}, "user_id": bob.ID})
		bs := signIn(t, env, bobFlow.ID, url.Values{"country_code": {"1"}, "phone_number": {"4155550111"}})
		post(t, env, "/f/"+bobFlow.ID+"/tax-forms", withSession(bs, url.Values{"consent": {"true"}}))
		if got := post(t, env, "/f/"+bobFlow.ID+"/tax-forms/pdf", withSession(bs, url.Values{"form_id": {form.ID}})); got.Status != http.StatusNotFound {
			t.Errorf("another payee's form: %d, want 404", got.Status)
		}
		if got := post(t, env, "/f/"+flow.ID+"/tax-forms/pdf", withSession(bs, url.Values{"form_id": {form.ID}})); got.Status == http.StatusOK {
			t.Errorf("another payee's session on this flow got the form")
		}

		finished := post(t, env, "/f/"+flow.ID+"/tax-forms", withSession(s, url.Values{"done": {"true"}}))
		if finished.Status != http.StatusSeeOther {
			t.Fatalf("done: %d\n%s", finished.Status, finished.Body)
		}
		if f := getFlow(t, env, flow.ID); len(f.CompletedSteps) != 1 || f.CompletedSteps[0] != payouts.StepTaxForms {
			t.Errorf("flow %+v, want the step completed", f)
		}
	})
}

// TestTaxConsentWithdrawn is the withdrawal of consent on the tax-forms step, on both engines:
// the consented page says how to withdraw and that it does not reach forms already furnished;
// withdrawing takes the forms off the page and records the time; and an outsider holding the
// link but not the code can neither consent, withdraw, nor download.
func TestTaxConsentWithdrawn(t *testing.T) {
	onEngines(t, func(t *testing.T, engine []servicetest.Option) {
		env, u, form, flow := taxFlow(t, engine)

		// The outsider identifies with the payee's number but never enters the code texted to it.
		pending := post(t, env, "/f/"+flow.ID+"/identify"+keyed(t, env, flow.ID), ada("4155550100")).Session(t)
		for _, tt := range []struct {
			name, path string
			form       url.Values
		}{
			{"consent", "/tax-forms", url.Values{"consent": {"true"}}},
			{"withdraw", "/tax-forms/withdraw", url.Values{}},
			{"download", "/tax-forms/pdf", url.Values{"form_id": {form.ID}}},
		} {
			t.Run("outsider "+tt.name, func(t *testing.T) {
				for _, s := range []string{"", pending} {
					got := post(t, env, "/f/"+flow.ID+tt.path, withSession(s, tt.form))
					if got.Status == http.StatusOK && strings.HasPrefix(got.Body, "%PDF-") {
						t.Errorf("session %q downloaded the form", s)
					}
				}
				total, err := env.Service.ReportableTotal(ctx, env.AppID, u.ID, 2026)
				if err != nil || total.Consented || total.ConsentWithdrawn != nil {
					t.Errorf("the outsider changed the consent: %+v (%v)", total, err)
				}
			})
		}

		env.Clock.Advance(time.Minute) // past the wait between codes the outsider's identify set
		s := signIn(t, env, flow.ID, ada("4155550100"))
		if got := post(t, env, "/f/"+flow.ID+"/tax-forms/withdraw", withSession(s, url.Values{})); got.FieldError("consent") == "" {
			t.Errorf("withdrawal before consent: %d, no problem on consent\n%s", got.Status, got.Body)
		}
		post(t, env, "/f/"+flow.ID+"/tax-forms", withSession(s, url.Values{"consent": {"true"}}))
		p := openAs(t, env, flow.ID, s)
		p.Has(t, form.ID, "Withdraw my consent", "does not apply to forms already furnished")

		env.Clock.Advance(time.Minute)
		if got := post(t, env, "/f/"+flow.ID+"/tax-forms/withdraw", withSession(s, url.Values{})); got.Status != http.StatusSeeOther {
			t.Fatalf("withdraw: %d\n%s", got.Status, got.Body)
		}
		total, err := env.Service.ReportableTotal(ctx, env.AppID, u.ID, 2026)
		if err != nil || total.Consented || total.ConsentWithdrawn == nil || !total.ConsentWithdrawn.Equal(env.Clock.Now()) {
			t.Errorf("withdrawal not recorded: %+v (%v)", total, err)
		}
		p = openAs(t, env, flow.ID, s)
		p.Has(t, "I agree to receive my tax forms electronically.", "You withdrew your consent")
		if strings.Contains(p.Body, form.ID) {
			t.Errorf("the form is still offered after the withdrawal")
		}
		if got := post(t, env, "/f/"+flow.ID+"/tax-forms/pdf", withSession(s, url.Values{"form_id": {form.ID}})); got.Status != http.StatusForbidden {
			t.Errorf("download after withdrawal: %d, want 403", got.Status)
		}
	})
}
