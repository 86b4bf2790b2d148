package hosted_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// start runs the real service with its hosted pages, the sandbox notifier and no background
// worker: tests settle payouts themselves with SettleDue.
func start(t *testing.T, opts ...servicetest.Option) *servicetest.Env {
	t.Helper()
	opts = append([]servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}, opts...)
	return servicetest.Start(t, opts...)
}

// page is a hosted page as the browser got it, redirects not followed.
type page struct {
	Status int
	Header http.Header
	Body   string
	env    *servicetest.Env
}

// Location is where a redirect sends the browser.
func (p page) Location() string { return p.Header.Get("Location") }

// Session is the signed session the page's forms carry, in their hidden field; of a redirect,
// the session of the page it sends the browser to (its URL carries only a handoff).
func (p page) Session(t *testing.T) string {
	t.Helper()
	if loc := p.Location(); loc != "" && p.env != nil {
		return get(t, p.env, loc).Session(t)
	}
	if m := sessionField.FindStringSubmatch(p.Body); m != nil {
		return html.UnescapeString(m[1])
	}
	t.Fatalf("no session in the %d page:\n%s", p.Status, p.Body)
	return ""
}

// openAs opens a flow's page as the payee of session s, as a redirect would send them there:
// with a handoff of the session in the URL, and any extra query pairs (name, value, ...).
func openAs(t *testing.T, env *servicetest.Env, flowID, s string, pairs ...string) page {
	t.Helper()
	parts := strings.Split(s, ".")
	if len(parts) != 5 {
		t.Fatalf("not a session: %q", s)
	}
	q := url.Values{"s": {env.Service.SignPayeeHandoff(service.PayeeSession{FlowID: flowID, UserID: parts[1],
		ByEmail: strings.HasPrefix(parts[2], "e"), Verified: strings.HasSuffix(parts[2], "v")})}}
	for i := 0; i+1 < len(pairs); i += 2 {
		q.Set(pairs[i], pairs[i+1])
	}
	return get(t, env, "/f/"+flowID+"?"+q.Encode())
}

var sessionField = regexp.MustCompile(`name="s" value="([^"]+)"`)

// Has fails t unless the page's body contains each text: markup as is, or text HTML-escaped as
// templ writes it.
func (p page) Has(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(p.Body, s) && !strings.Contains(p.Body, html.EscapeString(s)) {
			t.Errorf("page (%d) lacks %q:\n%s", p.Status, s, p.Body)
		}
	}
}

// FieldError returns the problem the page shows under the field name.
func (p page) FieldError(name string) string {
	re := regexp.MustCompile(`id="field-` + regexp.QuoteMeta(name) + `-error"[^>]*>([^<]*)<`)
	if m := re.FindStringSubmatch(p.Body); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// noRedirects is an HTTP client that keeps redirects for the test to see.
func noRedirects(env *servicetest.Env) *http.Client {
	return &http.Client{Timeout: time.Minute, Transport: env.HTTP.Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func send(t *testing.T, env *servicetest.Env, req *http.Request) page {
	t.Helper()
	resp, err := noRedirects(env).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", req.Method, req.URL, err)
	}
	return page{Status: resp.StatusCode, Header: resp.Header, Body: string(b), env: env}
}

// get opens a hosted page by path (or by a full URL of the service).
func get(t *testing.T, env *servicetest.Env, path string) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Origin+strings.TrimPrefix(path, env.Origin), nil)
	if err != nil {
		t.Fatal(err)
	}
	return send(t, env, req)
}

// post submits a form as a browser does from a page with Referrer-Policy no-referrer: with
// Origin "null".
func post(t *testing.T, env *servicetest.Env, path string, form url.Values) page {
	t.Helper()
	return postFrom(t, env, "null", path, form)
}

func postFrom(t *testing.T, env *servicetest.Env, origin, path string, form url.Values) page {
	t.Helper()
	return postWith(t, env, path, form, map[string]string{"Origin": origin})
}

// postWith submits a form with the headers given; an empty value sends no header.
func postWith(t *testing.T, env *servicetest.Env, path string, form url.Values, header map[string]string) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.Origin+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	return send(t, env, req)
}

// fund deposits amount cents into the app's wallet through the API.
func fund(t *testing.T, env *servicetest.Env, amount int64) {
	t.Helper()
	servicetest.Want[payouts.Transfer](t, env.Do(t, "POST", "/v2/apps/"+env.AppID+"/deposit", map[string]any{"amount": amount}), "deposit", http.StatusOK)
}

// createLink makes a payout link through the API.
func createLink(t *testing.T, env *servicetest.Env, req map[string]any) payouts.PayoutLink {
	t.Helper()
	return servicetest.Want[payouts.PayoutLink](t, env.Do(t, "POST", "/v2/payout-links", req), "create payout link", http.StatusCreated)
}

// createUser makes a user with a phone number through the service.
func createUser(t *testing.T, env *servicetest.Env, first, last, email, phone string) *payouts.User {
	t.Helper()
	u, err := env.Service.CreateUser(ctx, env.AppID, payouts.CreateUserRequest{FirstName: first, LastName: last,
		Email: email, CountryCode: "1", PhoneNumber: phone})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// createFlow makes a flow through the API.
func createFlow(t *testing.T, env *servicetest.Env, req map[string]any) payouts.Flow {
	t.Helper()
	return servicetest.Want[payouts.Flow](t, env.Do(t, "POST", "/v2/flows", req), "create flow", http.StatusOK, http.StatusCreated)
}

// getFlow reads a flow through the API.
func getFlow(t *testing.T, env *servicetest.Env, id string) payouts.Flow {
	t.Helper()
	return servicetest.Want[payouts.Flow](t, env.Do(t, "GET", "/v2/flows/"+id, nil), "get flow", http.StatusOK)
}

// signIn identifies a payee on a flow by phone, as a new user when names are given, and enters
// the token texted; it returns the verified session.
func signIn(t *testing.T, env *servicetest.Env, flowID string, who url.Values) string {
	t.Helper()
	p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), who)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("identify: %d\n%s", p.Status, p.Body)
	}
	pending := p.Session(t)
	digits := strings.NewReplacer("-", "", " ", "").Replace(who.Get("phone_number"))
	tok := env.Inbox.Token(t, "+"+who.Get("country_code")+" "+digits)
	p = post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {tok}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("verify: %d\n%s", p.Status, p.Body)
	}
	return p.Session(t)
}

// ada is a new payee's identify form.
func ada(phone string) url.Values {
	return url.Values{"country_code": {"1"}, "phone_number": {phone}, "first_name": {"Ada"},
		"last_name": {"Lovelace"}, "email": {"ada" + phone + "@example.com"}}
}

func withSession(s string, v url.Values) url.Values {
	v.Set("s", s)
	return v
}

var ctx = context.Background()

// keyed is the query carrying the claim key a sessionless request on a flow needs when its
// payout link names nobody, as the link's own URL hands it to the payee; empty otherwise.
func keyed(t *testing.T, env *servicetest.Env, flowID string) string {
	t.Helper()
	hf, err := env.Service.OpenHostedFlow(ctx, flowID)
	if err != nil {
		t.Fatal(err)
	}
	if hf.Key == "" {
		return ""
	}
	return "?k=" + hf.Key
}

// onEngines runs test once on SQLite and once on PostgreSQL; engine is the option that picks the
// database, for test to pass to start.
func onEngines(t *testing.T, test func(t *testing.T, engine []servicetest.Option)) {
	t.Run("SQLite", func(t *testing.T) { test(t, nil) })
	t.Run("PostgreSQL", func(t *testing.T) { test(t, []servicetest.Option{servicetest.WithPostgres()}) })
}
