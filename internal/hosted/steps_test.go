package hosted_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestFieldErrors posts bad forms to each step and expects the page back (422) with the
// service's problem next to the field it is about, and the step still open.
func TestFieldErrors(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 3_00, "force_collect_compliance_information": true,
		"additional_steps": []string{"id-verification", "background-check", "manage-payouts"}})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("4155550130"))

	tests := []struct {
		name  string
		path  string
		form  url.Values
		field string
		error string
	}{
		{"W-9 with a short TIN", "compliance", url.Values{"form": {"w9"}, "w9.entity_type": {"individual"},
			"w9.first_name": {"Ada"}, "w9.last_name": {"L"}, "w9.date_of_birth": {"1990-01-01"}, "w9.tin": {"123"}},
			"w9.tin", "SSN or EIN must be 9 digits."},
		{"W-9 without a city", "compliance", url.Values{"form": {"w9"}}, "w9.address.city", "Enter the city."},
		{"W-8BEN unsigned", "compliance", url.Values{"form": {"w8ben"}, "w8ben.name": {"Ada"}},
			"w8ben.signature.consent", "Tick the box to sign the form."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := post(t, env, "/f/"+flowID+"/"+tt.path, withSession(s, tt.form))
			if p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d\n%s", p.Status, p.Body)
			}
			if got := p.FieldError(tt.field); got != tt.error {
				t.Errorf("error under %s: %q, want %q", tt.field, got, tt.error)
			}
			if v := tt.form.Get("w9.tin"); v != "" && strings.Contains(p.Body, `value="`+v+`"`) {
				t.Error("the page writes the TIN back")
			}
			p.Session(t) // the form carries the session on
		})
	}
	if len(getFlow(t, env, flowID).CompletedSteps) != 0 {
		t.Fatal("a refused form completed a step")
	}

	// The steps after compliance, reached one by one.
	steps := []struct {
		name, path string
		bad        url.Values
		field      string
		error      string
		good       url.Values
	}{
		{"compliance", "compliance", nil, "", "", url.Values{"form": {"w8ben"}, "w8ben.name": {"Ada Lovelace"},
			"w8ben.citizenship_country": {"GB"}, "w8ben.date_of_birth": {"1990-12-10"}, "w8ben.tin": {"912701234"}, "w8ben.foreign_tax_id": {"GB123"},
			"w8ben.address.line_1": {"1 High St"}, "w8ben.address.city": {"London"}, "w8ben.address.state": {"London"},
			"w8ben.address.postcode": {"N1"}, "w8ben.address.country": {"GB"}, "w8ben.signature.consent": {"true"},
			"w8ben.signature.name": {"Ada Lovelace"}, "w8ben.signature.email": {"ada@example.com"}}},
		{"id verification fails on the sandbox trigger", "id-verification",
			url.Values{"ssn_last4": {"0000"}, "date_of_birth": {"1990-12-10"}}, "ssn_last4",
			"We could not verify your identity with these details.",
			url.Values{"ssn_last4": {"1234"}, "date_of_birth": {"1990-12-10"}}},
		{"background check without consent", "background-check", url.Values{"name": {"Ada"}}, "consent",
			"Tick the box to allow the background check.", url.Values{"consent": {"true"}, "name": {"Ada Lovelace"}}},
		{"ach with a bad routing number", "payout-methods", url.Values{"platform": {"ach"}, "routing_number": {"123456789"},
			"account_number": {"12345678"}, "account_type": {"checking"}}, "routing_number",
			"Routing number is not a valid 9-digit ABA routing number.",
			url.Values{"platform": {"ach"}, "routing_number": {"011000015"}, "account_number": {"12345678"}, "account_type": {"savings"}}},
		{"payout without a method", "payout", url.Values{}, "account_id", "Choose where to send the money.", nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.bad != nil {
				p := post(t, env, "/f/"+flowID+"/"+st.path, withSession(s, st.bad))
				if p.Status != http.StatusUnprocessableEntity || p.FieldError(st.field) != st.error {
					t.Fatalf("status %d, error under %s %q, want %q\n%s", p.Status, st.field, p.FieldError(st.field), st.error, p.Body)
				}
			}
			if st.good != nil {
				p := post(t, env, "/f/"+flowID+"/"+st.path, withSession(s, st.good))
				if p.Status != http.StatusSeeOther {
					t.Fatalf("status %d\n%s", p.Status, p.Body)
				}
			}
		})
	}
	user, err := env.Service.GetUser(ctx, env.AppID, strings.Split(s, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	if !user.Compliance.W8BENCollected || !user.Compliance.IDVerified || !user.Verified {
		t.Errorf("compliance after the steps: %+v, verified %v", user.Compliance, user.Verified)
	}
	if got := getFlow(t, env, flowID).CompletedSteps; len(got) != 4 {
		t.Errorf("completed steps %q", got)
	}
}

// TestStepOrder shows that a step cannot be skipped: a post for a later step sends the payee
// back to the step due, and does nothing.
func TestStepOrder(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 3_00, "force_collect_compliance_information": true})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("4155550140"))
	if p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"a@example.com"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("add a method on the compliance step: %d", p.Status)
	}
	p := post(t, env, "/f/"+flowID+"/payout", withSession(s, url.Values{}))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("payout before compliance: %d\n%s", p.Status, p.Body)
	}
	get(t, env, p.Location()).Has(t, "Tax information")
	r := env.Do(t, "GET", "/v2/payout-links/"+link.ID, nil)
	var l payouts.PayoutLink
	r.Decode(t, &l)
	if l.Status == payouts.LinkClaimed {
		t.Fatal("the link was claimed before compliance")
	}
	// An unverified session opens no step either.
	pending := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), url.Values{"country_code": {"1"}, "phone_number": {"4155550140"}}).Session(t)
	if p := post(t, env, "/f/"+flowID+"/compliance", withSession(pending, url.Values{"form": {"w9"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("compliance with an unverified session: %d", p.Status)
	} else {
		get(t, env, p.Location()).Has(t, "Enter your code")
	}
}

// TestRedirectStep ends a flow at the app's redirect URL, out of any iframe.
func TestRedirectStep(t *testing.T) {
	t.Parallel()
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []any{"manage-payouts",
		map[string]string{"name": "redirect", "redirect_url": "https://app.example/back?from=flow"}}})
	s := signIn(t, env, f.ID, ada("4155550160"))
	p := post(t, env, "/f/"+f.ID+"/payout-methods", withSession(s, url.Values{"platform": {"venmo"}, "handle": {"@ada-l"}}))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("add venmo: %d\n%s", p.Status, p.Body)
	}
	page := get(t, env, p.Location())
	page.Has(t, "You’re all set", `target="_top"`, "Continue to app.example", `action="/f/`+f.ID+`/redirect"`)
	p = post(t, env, "/f/"+f.ID+"/redirect", url.Values{"s": {page.Session(t)}})
	if p.Status != http.StatusSeeOther || p.Location() != "https://app.example/back?from=flow" {
		t.Fatalf("redirect: %d to %q", p.Status, p.Location())
	}
	if got := getFlow(t, env, f.ID); !got.Done() {
		t.Fatalf("flow after the redirect: %+v", got)
	}
}

// TestW8BENTreatyClaim is the treaty claim of the public W-8BEN on the payee's hosted form: the
// fields are offered, optional, refused as the API refuses them (each on its field, nothing
// kept), and a valid claim completes the step.
func TestW8BENTreatyClaim(t *testing.T) {
	onEngines(t, func(t *testing.T, engine []servicetest.Option) {
		env := start(t, engine...)
		flowID := createFlow(t, env, map[string]any{"steps": []string{payouts.StepCompliance}}).ID
		s := signIn(t, env, flowID, ada("4155550131"))
		form := func(claim map[string]string) url.Values {
			v := url.Values{"form": {"w8ben"}, "w8ben.name": {"Ada Lovelace"}, "w8ben.citizenship_country": {"GB"},
				"w8ben.date_of_birth": {"1990-12-10"}, "w8ben.tin": {"912701234"}, "w8ben.address.line_1": {"1 High St"},
				"w8ben.address.city": {"London"}, "w8ben.address.state": {"London"}, "w8ben.address.postcode": {"N1"},
				"w8ben.address.country": {"GB"}, "w8ben.signature.consent": {"true"}, "w8ben.signature.name": {"Ada Lovelace"},
				"w8ben.signature.email": {"ada@example.com"}}
			for k, val := range claim {
				v.Set("w8ben.tax_treaty_"+k, val)
			}
			return v
		}
		page := post(t, env, "/f/"+flowID+"/show", withSession(s, url.Values{"form": {"w8ben"}}))
		page = openAs(t, env, flowID, page.Session(t), "form", "w8ben")
		for _, name := range []string{"country", "citation", "rate", "income_type", "explanation"} {
			page.Has(t, `name="w8ben.tax_treaty_`+name+`"`)
		}
		for _, tt := range []struct {
			name  string
			claim map[string]string
			field string
		}{
			{"a rate that is not a number", map[string]string{"rate": "fifteen"}, "w8ben.tax_treaty_rate"},
			{"a rate over 1", map[string]string{"rate": "15"}, "w8ben.tax_treaty_rate"},
			{"a country by name", map[string]string{"country": "Germany"}, "w8ben.tax_treaty_country"},
			{"an income type the API does not list", map[string]string{"income_type": "salary"}, "w8ben.tax_treaty_income_type"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				p := post(t, env, "/f/"+flowID+"/compliance", withSession(s, form(tt.claim)))
				if p.Status != http.StatusUnprocessableEntity || p.FieldError(tt.field) == "" {
					t.Fatalf("status %d, no problem under %s\n%s", p.Status, tt.field, p.Body)
				}
			})
		}
		if len(getFlow(t, env, flowID).CompletedSteps) != 0 {
			t.Fatal("a refused treaty claim completed the step")
		}
		done := post(t, env, "/f/"+flowID+"/compliance", withSession(s, form(map[string]string{"country": "GB",
			"citation": "Article 7", "rate": "0.15", "income_type": payouts.TreatyIncomeTypes[0], "explanation": "Business profits"})))
		if done.Status != http.StatusSeeOther {
			t.Fatalf("a valid treaty claim: %d\n%s", done.Status, done.Body)
		}
		if got := getFlow(t, env, flowID).CompletedSteps; len(got) != 1 {
			t.Errorf("completed steps %q, want the compliance step", got)
		}
	})
}
