package hosted_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestSecurityHeaders(t *testing.T) {
	env := start(t, servicetest.WithConfig(func(c *payoutd.Config) {
		c.FrameAncestors = []string{"https://dash.example", "http://localhost:8080"}
	}))
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 5_00})
	redirect := createFlow(t, env, map[string]any{"steps": []any{
		map[string]string{"name": "redirect", "redirect_url": "https://app.example/done?x=1"}}})
	s := signIn(t, env, redirect.ID, ada("5555550190"))

	tests := []struct {
		name       string
		path       string
		status     int
		formAction string
	}{
		{"claim page", "/l/" + link.ID, http.StatusOK, "'self'"},
		{"flow page", "/f/" + *link.FlowID, http.StatusOK, "'self'"},
		{"unknown link", "/l/" + "00000000-0000-4000-8000-000000000000", http.StatusNotFound, "'self'"},
		{"sandbox inbox", "/sandbox/inbox", http.StatusOK, "'self'"},
		// The redirect step's form leaves for the app, so its page lets forms go there.
		{"redirect step", "/f/" + redirect.ID + "?s=" + url.QueryEscape(s), http.StatusOK, "'self' https://app.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := get(t, env, tt.path)
			if p.Status != tt.status {
				t.Fatalf("status %d, want %d", p.Status, tt.status)
			}
			csp := p.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "frame-ancestors https://dash.example http://localhost:8080",
				"form-action " + tt.formAction + ";", "base-uri 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "script-src") || strings.Contains(p.Body, "<script") {
				t.Errorf("the page runs script: CSP %q", csp)
			}
			for h, want := range map[string]string{"X-Content-Type-Options": "nosniff",
				"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
				if got := p.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
		})
	}

	t.Run("default frame ancestors", func(t *testing.T) {
		env := start(t)
		csp := get(t, env, "/sandbox/inbox").Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'self';") {
			t.Errorf("CSP %q: without configured origins only the service may frame its pages", csp)
		}
	})

	t.Run("stylesheet", func(t *testing.T) {
		css := cssURL(t, get(t, env, "/l/"+link.ID).Body)
		p := get(t, env, css)
		if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/css") || len(p.Body) < 1000 {
			t.Fatalf("%s: %d %q, %d bytes", css, p.Status, p.Header.Get("Content-Type"), len(p.Body))
		}
		if cc := p.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("versioned stylesheet: Cache-Control %q", cc)
		}
		if cc := get(t, env, "/static/css/app.css").Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("unversioned stylesheet: Cache-Control %q", cc)
		}
		if p := get(t, env, "/static/nope.css"); p.Status != http.StatusNotFound {
			t.Errorf("unknown asset: %d", p.Status)
		}
	})
}

func cssURL(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `<link rel="stylesheet" href="`)
	if !ok {
		t.Fatalf("no stylesheet in %s", body)
	}
	href, _, _ := strings.Cut(rest, `"`)
	return strings.ReplaceAll(href, "&amp;", "&")
}

func TestPayoutLinkPage(t *testing.T) {
	env := start(t)
	fund(t, env, 100_00)
	open := createLink(t, env, map[string]any{"amount": 25_00, "memo": "Thanks for the logo"})
	canceled := createLink(t, env, map[string]any{"amount": 1_00})
	if r := env.Do(t, "DELETE", "/v2/payout-links/"+canceled.ID, nil); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	claimed := createLink(t, env, map[string]any{"amount": 2_00})
	payee, err := env.Service.CreateUser(ctx, env.AppID, payouts.CreateUserRequest{FirstName: "Bo", LastName: "Diddley",
		Email: "bo@example.com", CountryCode: "1", PhoneNumber: "5555550150"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.ClaimPayoutLink(ctx, claimed.ID, payee.ID); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		path   string
		status int
		has    []string
		hasNot string
	}{
		{"open", "/l/" + open.ID, http.StatusOK,
			[]string{"Test app sent you", "$25.00", "Thanks for the logo", "Claim $25.00", `href="/f/` + *open.FlowID + `"`}, ""},
		{"claimed", "/l/" + claimed.ID, http.StatusOK, []string{"$2.00", "This payout has been claimed."}, "Claim $2.00"},
		{"canceled", "/l/" + canceled.ID, http.StatusOK, []string{"$1.00", "Test app canceled this payout."}, "Claim $1.00"},
		{"canceled link's flow", "/f/" + *canceled.FlowID, http.StatusOK, []string{"Test app canceled this payout."}, "Confirm it’s you"},
		{"not an id", "/l/nope", http.StatusNotFound, []string{"Page not found"}, ""},
		{"unknown id", "/l/00000000-0000-4000-8000-000000000000", http.StatusNotFound, []string{"Page not found"}, ""},
		{"not a flow id", "/f/nope", http.StatusNotFound, []string{"Page not found"}, ""},
		{"unknown flow", "/f/00000000-0000-4000-8000-000000000000", http.StatusNotFound, []string{"Page not found"}, ""},
		{"another step of an unknown flow", "/f/00000000-0000-4000-8000-000000000000?s=x", http.StatusNotFound, []string{"Page not found"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := get(t, env, tt.path)
			if p.Status != tt.status {
				t.Fatalf("status %d, want %d\n%s", p.Status, tt.status, p.Body)
			}
			if !strings.HasPrefix(p.Body, "<!doctype html>") || !strings.HasSuffix(p.Body, "</html>") {
				t.Errorf("not a whole page:\n%s", p.Body)
			}
			p.Has(t, tt.has...)
			if tt.hasNot != "" && strings.Contains(p.Body, tt.hasNot) {
				t.Errorf("page shows %q", tt.hasNot)
			}
		})
	}
}

// TestSession shows that only a session the service signed, for this flow and still fresh,
// opens the steps of a flow, and that forms from other sites are refused.
func TestSession(t *testing.T) {
	env := start(t)
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 3_00})
	other := createLink(t, env, map[string]any{"amount": 4_00})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("5555550120"))
	otherSession := signIn(t, env, *other.FlowID, ada("5555550121"))
	// The other session is the other payee's: the first flow is now bound to Ada of ...0120.
	parts := strings.Split(s, ".")

	tamper := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	form := url.Values{"platform": {"paypal"}, "email": {"mallory@example.com"}}

	tests := []struct {
		name    string
		session string
		status  int
		message string
	}{
		{"another user's id", tamper(1, strings.Split(otherSession, ".")[1]), http.StatusForbidden, "session is not valid"},
		{"a later expiry", tamper(3, "99999999999"), http.StatusForbidden, "session is not valid"},
		{"a forged signature", tamper(4, strings.Repeat("0", 64)), http.StatusForbidden, "session is not valid"},
		{"not yet verified", tamper(2, "p"), http.StatusForbidden, "session is not valid"},
		{"another flow's session", otherSession, http.StatusForbidden, "session is not valid"},
		{"garbage", "x", http.StatusForbidden, "session is not valid"},
		{"no session", "", http.StatusForbidden, "session is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(tt.session, form))
			if p.Status != tt.status {
				t.Fatalf("post: %d, want %d\n%s", p.Status, tt.status, p.Body)
			}
			p.Has(t, tt.message, `href="/f/`+flowID+`"`) // and the way to start again
			if tt.session != "" {
				if g := get(t, env, "/f/"+flowID+"?s="+url.QueryEscape(tt.session)); g.Status != tt.status {
					t.Errorf("get: %d, want %d", g.Status, tt.status)
				}
			}
		})
	}
	if methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, parts[1]); err != nil || len(methods) != 0 {
		t.Fatalf("a refused post saved a payout method: %v %v", methods, err)
	}

	t.Run("another site's form", func(t *testing.T) {
		p := postFrom(t, env, "https://evil.example", "/f/"+flowID+"/payout-methods", withSession(s, form))
		if p.Status != http.StatusForbidden {
			t.Fatalf("status %d\n%s", p.Status, p.Body)
		}
		p.Has(t, "sent from another site")
	})
	t.Run("our own origin", func(t *testing.T) {
		p := postFrom(t, env, env.Origin, "/f/"+flowID+"/payout-methods", withSession(s, form))
		if p.Status != http.StatusSeeOther {
			t.Fatalf("status %d\n%s", p.Status, p.Body)
		}
	})
	t.Run("expired", func(t *testing.T) {
		env.Clock.Advance(31 * time.Minute)
		p := get(t, env, "/f/"+flowID+"?s="+url.QueryEscape(s))
		if p.Status != http.StatusForbidden {
			t.Fatalf("status %d", p.Status)
		}
		p.Has(t, "Your session expired", "Start again")
	})
}

// TestFlowOwner shows that a flow issued to a user, or already started by one, is theirs alone.
func TestFlowOwner(t *testing.T) {
	env := start(t)
	fund(t, env, 10_00)
	bo, err := env.Service.CreateUser(ctx, env.AppID, payouts.CreateUserRequest{FirstName: "Bo", LastName: "D",
		Email: "bo@example.com", CountryCode: "1", PhoneNumber: "5555550180"})
	if err != nil {
		t.Fatal(err)
	}
	link := createLink(t, env, map[string]any{"amount": 3_00, "user_id": bo.ID,
		"additional_steps": []string{"manage-payouts"}})
	flowID := *link.FlowID
	before := len(env.Inbox.Messages())

	p := post(t, env, "/f/"+flowID+"/identify", ada("5555550181"))
	if p.Status != http.StatusUnprocessableEntity || p.FieldError("phone_number") != "is not the number this page was sent to" {
		t.Fatalf("another number: %d, phone error %q", p.Status, p.FieldError("phone_number"))
	}
	if len(env.Inbox.Messages()) != before {
		t.Error("a token went out for a number the flow was not sent to")
	}
	if _, err := env.Service.FindOrCreatePayee(ctx, env.AppID, payouts.CreateUserRequest{CountryCode: "1", PhoneNumber: "5555550181"}); err == nil {
		t.Error("identifying with another number created a user")
	}

	s := signIn(t, env, flowID, url.Values{"country_code": {"1"}, "phone_number": {"555-555-0180"}})
	if p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"bo@example.com"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("bo adds a method: %d\n%s", p.Status, p.Body)
	}
	if f := getFlow(t, env, flowID); f.UserID == nil || *f.UserID != bo.ID || len(f.CompletedSteps) != 1 {
		t.Fatalf("flow after bo's step: %+v", f)
	}
}

// TestFieldErrors posts bad forms to each step and expects the page back (422) with the
// service's problem next to the field it is about, and the step still open.
func TestFieldErrors(t *testing.T) {
	env := start(t)
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 3_00, "force_collect_compliance_information": true,
		"additional_steps": []string{"id-verification", "background-check", "manage-payouts"}})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("5555550130"))

	tests := []struct {
		name  string
		path  string
		form  url.Values
		field string
		error string
	}{
		{"W-9 with a short TIN", "compliance", url.Values{"form": {"w9"}, "w9.entity_type": {"individual"},
			"w9.first_name": {"Ada"}, "w9.last_name": {"L"}, "w9.date_of_birth": {"1990-01-01"}, "w9.tin": {"123"}},
			"w9.tin", "must be 9 digits"},
		{"W-9 without a city", "compliance", url.Values{"form": {"w9"}}, "w9.address.city", "is required"},
		{"W-8BEN unsigned", "compliance", url.Values{"form": {"w8ben"}, "w8ben.name": {"Ada"}},
			"w8ben.signature.consent", "must be true: the form is signed under penalty of perjury"},
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
			"w8ben.citizenship_country": {"GB"}, "w8ben.date_of_birth": {"1990-12-10"}, "w8ben.foreign_tax_id": {"GB123"},
			"w8ben.address.line_1": {"1 High St"}, "w8ben.address.city": {"London"}, "w8ben.address.state": {"London"},
			"w8ben.address.postcode": {"N1"}, "w8ben.address.country": {"GB"}, "w8ben.signature.consent": {"true"},
			"w8ben.signature.name": {"Ada Lovelace"}, "w8ben.signature.email": {"ada@example.com"}}},
		{"id verification fails on the sandbox trigger", "id-verification",
			url.Values{"ssn_last4": {"0000"}, "date_of_birth": {"1990-12-10"}}, "ssn_last4",
			"we could not verify your identity with these details",
			url.Values{"ssn_last4": {"1234"}, "date_of_birth": {"1990-12-10"}}},
		{"background check without consent", "background-check", url.Values{"name": {"Ada"}}, "consent",
			"is needed to run the background check", url.Values{"consent": {"true"}, "name": {"Ada Lovelace"}}},
		{"ach with a bad routing number", "payout-methods", url.Values{"platform": {"ach"}, "routing_number": {"123456789"},
			"account_number": {"12345678"}, "account_type": {"checking"}}, "routing_number",
			"is not a valid 9-digit ABA routing number",
			url.Values{"platform": {"ach"}, "routing_number": {"011000015"}, "account_number": {"12345678"}, "account_type": {"savings"}}},
		{"payout without a method", "payout", url.Values{}, "account_id", "choose where to send the money", nil},
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
	env := start(t)
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 3_00, "force_collect_compliance_information": true})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("5555550140"))
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
	pending := post(t, env, "/f/"+flowID+"/identify", url.Values{"country_code": {"1"}, "phone_number": {"5555550140"}}).Session(t)
	if p := post(t, env, "/f/"+flowID+"/compliance", withSession(pending, url.Values{"form": {"w9"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("compliance with an unverified session: %d", p.Status)
	} else {
		get(t, env, p.Location()).Has(t, "Enter your code")
	}
}

// TestRedirectStep ends a flow at the app's redirect URL, out of any iframe.
func TestRedirectStep(t *testing.T) {
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []any{"manage-payouts",
		map[string]string{"name": "redirect", "redirect_url": "https://app.example/back?from=flow"}}})
	s := signIn(t, env, f.ID, ada("5555550160"))
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

func TestSandboxInbox(t *testing.T) {
	env := start(t)
	fund(t, env, 10_00)
	createLink(t, env, map[string]any{"amount": 7_00, "payee": map[string]string{"email": "zoe@example.com"},
		"delivery": map[string]string{"method": "email"}})
	if _, err := env.Service.DeliverDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	other := env.CreateApp(t, "Other app")
	f := createFlow(t, env, map[string]any{"steps": []string{"manage-payouts"}})
	post(t, env, "/f/"+f.ID+"/identify", ada("5555550170"))

	all := get(t, env, "/sandbox/inbox")
	all.Has(t, "Sandbox inbox", "zoe@example.com", "Test app sent you $7.00", "+1 5555550170", "Your verification code is",
		`<a href="`+env.Origin+`/l/`, "?app="+other.AppID)
	if strings.Index(all.Body, "+1 5555550170") > strings.Index(all.Body, "zoe@example.com") {
		t.Error("the inbox is not newest first")
	}
	mine := get(t, env, "/sandbox/inbox?app="+other.AppID)
	if strings.Contains(mine.Body, "zoe@example.com") {
		t.Error("the other app's inbox shows the first app's message")
	}
	mine.Has(t, "No messages yet")

	off := start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = true }))
	if p := get(t, off, "/sandbox/inbox"); p.Status != http.StatusNotFound {
		t.Fatalf("inbox turned off: %d", p.Status)
	}
}
