package hosted_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	env := start(t, servicetest.WithConfig(func(c *payoutd.Config) {
		c.FrameAncestors = []string{"https://dash.example", "http://localhost:8080"}
	}))
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 5_00})
	redirect := createFlow(t, env, map[string]any{"steps": []any{
		map[string]string{"name": "redirect", "redirect_url": "https://app.example/done?x=1"}}})
	s := signIn(t, env, redirect.ID, ada("4155550190"))

	tests := []struct {
		name       string
		path       string
		status     int
		formAction string
	}{
		{"claim page", link.Link, http.StatusOK, "'self'"},
		{"flow page", "/f/" + *link.FlowID + keyed(t, env, *link.FlowID), http.StatusOK, "'self'"},
		{"unknown link", "/l/" + "00000000-0000-4000-8000-000000000000", http.StatusNotFound, "'self'"},
		// The redirect step's form leaves for the app, so its page lets forms go there.
		{"redirect step", "/f/" + redirect.ID + "?s=" + url.QueryEscape(env.Service.SignPayeeHandoff(service.PayeeSession{FlowID: redirect.ID, UserID: strings.Split(s, ".")[1], Verified: true})),
			http.StatusOK, "'self' https://app.example"},
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
		csp := get(t, env, "/l/00000000-0000-4000-8000-000000000000").Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'self';") {
			t.Errorf("CSP %q: without configured origins only the service may frame its pages", csp)
		}
	})

	t.Run("stylesheet", func(t *testing.T) {
		css := cssURL(t, get(t, env, link.Link).Body)
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
	t.Parallel()
	env := start(t)
	fund(t, env, 100_00)
	open := createLink(t, env, map[string]any{"amount": 25_00, "memo": "Thanks for the logo"})
	canceled := createLink(t, env, map[string]any{"amount": 1_00})
	if r := env.Do(t, "DELETE", "/v2/payout-links/"+canceled.ID, nil); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	claimed := createLink(t, env, map[string]any{"amount": 2_00})
	payee := createUser(t, env, "Bo", "Diddley", "bo@example.com", "4155550150")
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
		{"open", open.Link, http.StatusOK,
			[]string{"Test app sent you", "$25.00", "Thanks for the logo", "Claim $25.00", `href="/f/` + *open.FlowID + keyed(t, env, *open.FlowID) + `"`}, ""},
		{"claimed", claimed.Link, http.StatusOK, []string{"$2.00", "This payout has been claimed."}, "Claim $2.00"},
		{"canceled", canceled.Link, http.StatusOK, []string{"$1.00", "Test app canceled this payout."}, "Claim $1.00"},
		{"canceled link's flow", "/f/" + *canceled.FlowID + keyed(t, env, *canceled.FlowID), http.StatusOK, []string{"Test app canceled this payout."}, "Confirm it’s you"},
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
	t.Parallel()
	env := start(t)
	fund(t, env, 10_00)
	link := createLink(t, env, map[string]any{"amount": 3_00})
	other := createLink(t, env, map[string]any{"amount": 4_00})
	flowID := *link.FlowID
	s := signIn(t, env, flowID, ada("4155550120"))
	otherSession := signIn(t, env, *other.FlowID, ada("4155550121"))
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
			p := post(t, env, "/f/"+flowID+"/payout-methods"+keyed(t, env, flowID), withSession(tt.session, form))
			if p.Status != tt.status {
				t.Fatalf("post: %d, want %d\n%s", p.Status, tt.status, p.Body)
			}
			p.Has(t, tt.message, `href="/f/`+flowID+keyed(t, env, flowID)+`"`) // and the way to start again
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
	// A token in a URL is a short-lived handoff, which only a page's GET takes; a session, which
	// lasts, travels only in a form's body (issue 44: the session rode in the URL).
	t.Run("a session in a URL", func(t *testing.T) {
		if g := get(t, env, "/f/"+flowID+"?s="+url.QueryEscape(s)); g.Status != http.StatusForbidden {
			t.Fatalf("get with the session in its URL: %d", g.Status)
		}
	})
	t.Run("a handoff in a form", func(t *testing.T) {
		handoff := env.Service.SignPayeeHandoff(service.PayeeSession{FlowID: flowID, UserID: parts[1], Verified: true})
		if p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(handoff, form)); p.Status != http.StatusForbidden {
			t.Fatalf("post with a handoff: %d", p.Status)
		}
		if p := post(t, env, "/f/"+flowID+"/payout-methods?s="+url.QueryEscape(s), form); p.Status != http.StatusForbidden {
			t.Fatalf("post with the session in its URL: %d", p.Status)
		}
	})
	t.Run("a redirect's URL carries a handoff that lasts minutes", func(t *testing.T) {
		p := post(t, env, "/f/"+flowID+"/show", withSession(s, url.Values{"platform": {"venmo"}}))
		u, err := url.Parse(p.Location())
		if p.Status != http.StatusSeeOther || err != nil || u.Query().Get("s") == s || u.Query().Get("platform") != "venmo" {
			t.Fatalf("show a platform: %d to %q", p.Status, p.Location())
		}
		get(t, env, p.Location()).Has(t, "Venmo username")
		env.Clock.Advance(service.PayeeHandoffLifetime)
		if g := get(t, env, p.Location()); g.Status != http.StatusForbidden {
			t.Fatalf("the redirect's URL %s later: %d", service.PayeeHandoffLifetime, g.Status)
		}
	})
	t.Run("expired", func(t *testing.T) {
		env.Clock.Advance(31 * time.Minute)
		p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, form))
		if p.Status != http.StatusForbidden {
			t.Fatalf("status %d", p.Status)
		}
		p.Has(t, "Your session expired", "Start again")
	})
}

// TestFlowOwner shows that a flow issued to a user, or already started by one, is theirs alone.
func TestFlowOwner(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 10_00)
	bo := createUser(t, env, "Bo", "D", "bo@example.com", "4155550180")
	link := createLink(t, env, map[string]any{"amount": 3_00, "user_id": bo.ID,
		"additional_steps": []string{"manage-payouts"}})
	flowID := *link.FlowID
	before := len(env.Inbox.Messages())

	p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), ada("4155550181"))
	if p.Status != http.StatusUnprocessableEntity || p.FieldError("phone_number") != "Mobile number is not the number this page was sent to." {
		t.Fatalf("another number: %d, phone error %q", p.Status, p.FieldError("phone_number"))
	}
	if len(env.Inbox.Messages()) != before {
		t.Error("a token went out for a number the flow was not sent to")
	}
	if users, err := env.Service.ListUsers(ctx, env.AppID, payouts.Page{Limit: 10}, payouts.UserFilter{Search: "4155550181"}); err != nil || len(users.Data) != 0 {
		t.Errorf("identifying with another number created a user: %+v %v", users, err)
	}

	s := signIn(t, env, flowID, url.Values{"country_code": {"1"}, "phone_number": {"415-555-0180"}})
	if p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"bo@example.com"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("bo adds a method: %d\n%s", p.Status, p.Body)
	}
	if f := getFlow(t, env, flowID); f.UserID == nil || *f.UserID != bo.ID || len(f.CompletedSteps) != 1 {
		t.Fatalf("flow after bo's step: %+v", f)
	}
}

// TestNoPublicInbox: the hosted side serves no sandbox inbox; each app reads its own messages
// behind its credentials (GET /v2/sandbox/messages, the dashboard's inbox).
func TestNoPublicInbox(t *testing.T) {
	t.Parallel()
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []string{"manage-payouts"}})
	post(t, env, "/f/"+f.ID+"/identify"+keyed(t, env, f.ID), ada("4155550170"))
	for _, path := range []string{"/sandbox/inbox", "/sandbox/inbox?app=" + env.AppID} {
		if p := get(t, env, path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "verification code") {
			t.Errorf("%s: %d\n%s", path, p.Status, p.Body)
		}
	}
}

// TestClaimKey: a link that names nobody, and its flow, open only with the key its own link
// carries; its id alone, a wrong key or another link's key get the page an unknown id gets. A
// link that names its payee opens by id as before.
func TestClaimKey(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 100_00)
	bearer := createLink(t, env, map[string]any{"amount": 5_00})
	other := createLink(t, env, map[string]any{"amount": 6_00})
	named := createLink(t, env, map[string]any{"amount": 7_00,
		"payee": map[string]any{"phone_number": "4155550777", "country_code": "1"}})
	key := func(l payouts.PayoutLink) string {
		t.Helper()
		u, err := url.Parse(l.Link)
		if err != nil || u.Query().Get("k") == "" {
			t.Fatalf("link %q carries no claim key", l.Link)
		}
		return u.Query().Get("k")
	}
	if strings.Contains(named.Link, "?") {
		t.Fatalf("a named link's URL carries a key: %s", named.Link)
	}
	flow := "/f/" + *bearer.FlowID
	tests := []struct {
		name   string
		path   string
		status int
	}{
		{"id alone", "/l/" + bearer.ID, http.StatusNotFound},
		{"wrong key", "/l/" + bearer.ID + "?k=" + strings.Repeat("A", 22), http.StatusNotFound},
		{"another link's key", "/l/" + bearer.ID + "?k=" + key(other), http.StatusNotFound},
		{"its own link", bearer.Link, http.StatusOK},
		{"flow by id alone", flow, http.StatusNotFound},
		{"flow with another link's key", flow + "?k=" + key(other), http.StatusNotFound},
		{"flow with its key", flow + "?k=" + key(bearer), http.StatusOK},
		{"flow's identify by id alone", flow + "/identify", http.StatusNotFound},
		{"named link by id", "/l/" + named.ID, http.StatusOK},
		{"named link's flow by id", "/f/" + *named.FlowID, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p page
			if strings.HasSuffix(tt.path, "/identify") {
				p = post(t, env, tt.path, ada("4155550778"))
			} else {
				p = get(t, env, tt.path)
			}
			if p.Status != tt.status {
				t.Fatalf("status %d, want %d\n%s", p.Status, tt.status, p.Body)
			}
			if tt.status == http.StatusNotFound {
				p.Has(t, "Page not found")
			}
		})
	}
}
