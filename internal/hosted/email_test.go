package hosted_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// TestEmailLinkAsksNoPhoneFirst: a payout link that names only an email proves its payee by a
// code to that email before asking anything. The first step has no phone field; after the code,
// a payee nobody knows gives names and phone and is made a user only then, and one whose proven
// email is on file is bound without giving a phone (issue 47).
func TestEmailLinkAsksNoPhoneFirst(t *testing.T) {
	t.Parallel()
	onEngines(t, testEmailLinkAsksNoPhoneFirst)
}

func testEmailLinkAsksNoPhoneFirst(t *testing.T, engine []servicetest.Option) {
	clock := testclock.New(time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	env := start(t, append(engine, servicetest.WithClock(clock))...)
	fund(t, env, 100_00)
	known := createUser(t, env, "Kay", "Known", "kay981@example.com", "4155550981")
	other := createUser(t, env, "Oth", "Er", "oth982@example.com", "4155550982")

	t.Run("a new payee proves the email, then gives names and phone", func(t *testing.T) {
		clock.Advance(time.Minute)
		link := createLink(t, env, map[string]any{"amount": 3_00, "payee": map[string]string{"first_name": "Nu", "email": "nu983@example.com"}})
		flowID := *link.FlowID
		first := get(t, env, "/f/"+flowID)
		if _, ok := inputValue(first, "phone_number"); ok {
			t.Fatalf("the first step asks for a phone:\n%s", first.Body)
		}
		first.Has(t, "n•••@example.com")
		sent := post(t, env, "/f/"+flowID+"/identify", url.Values{})
		if sent.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", sent.Status, sent.Body)
		}
		codePage := get(t, env, sent.Location())
		codePage.Has(t, "We emailed a 6-digit code to n•••@example.com")
		if users := usersWithEmail(t, env, "nu983@example.com"); len(users) != 0 {
			t.Fatalf("a user was made before the email was proven: %+v", users)
		}
		verified := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {codePage.Session(t)}, "token": {env.Inbox.Token(t, "nu983@example.com")}})
		if verified.Status != http.StatusSeeOther {
			t.Fatalf("verify: %d\n%s", verified.Status, verified.Body)
		}
		details := get(t, env, verified.Location())
		if _, ok := inputValue(details, "phone_number"); !ok {
			t.Fatalf("the proven payee is not asked for a phone:\n%s", details.Body)
		}
		if f := getFlow(t, env, flowID); f.UserID != nil || len(usersWithEmail(t, env, "nu983@example.com")) != 0 {
			t.Fatalf("proving the email bound %v or made a user before the details", f.UserID)
		}
		missing := post(t, env, "/f/"+flowID+"/details", url.Values{"s": {details.Session(t)}, "first_name": {"Nu"}, "last_name": {"Payee"}})
		if missing.Status != http.StatusUnprocessableEntity || missing.FieldError("phone_number") == "" {
			t.Fatalf("details without a phone: %d, phone error %q\n%s", missing.Status, missing.FieldError("phone_number"), missing.Body)
		}
		if len(usersWithEmail(t, env, "nu983@example.com")) != 0 {
			t.Fatal("details without a phone made a user")
		}
		// The phone typed is another user's proven phone: it finds nobody and attaches nothing.
		done := post(t, env, "/f/"+flowID+"/details", url.Values{"s": {details.Session(t)}, "first_name": {"Nu"},
			"last_name": {"Payee"}, "country_code": {"1"}, "phone_number": {"(415) 555-0982"}})
		if done.Status != http.StatusSeeOther {
			t.Fatalf("details: %d\n%s", done.Status, done.Body)
		}
		users := usersWithEmail(t, env, "nu983@example.com")
		f := getFlow(t, env, flowID)
		if len(users) != 1 || f.UserID == nil || *f.UserID != users[0].ID || *f.UserID == other.ID {
			t.Fatalf("flow bound %v, users with the email %+v", f.UserID, users)
		}
		if !users[0].Verified || users[0].PhoneNumber.PhoneNumber != "4155550982" {
			t.Fatalf("the new payee: %+v", users[0])
		}
		claim(t, env, flowID, done.Session(t), users[0].ID)
		// The typed phone stays unproven: a code for the new user goes to the email it proved.
		clock.Advance(time.Minute)
		issued := createLink(t, env, map[string]any{"amount": 1_00, "user_id": users[0].ID})
		if got := identifyAndVerify(t, env, *issued.FlowID, "nu983@example.com",
			url.Values{"country_code": {"1"}, "phone_number": {"4155550982"}}); got != users[0].ID {
			t.Fatalf("the link issued to the new payee bound %s", got)
		}
	})

	t.Run("an existing payee with the proven email is bound without a phone", func(t *testing.T) {
		clock.Advance(time.Minute)
		link := createLink(t, env, map[string]any{"amount": 2_00, "payee": map[string]string{"first_name": "Kay", "email": "kay981@example.com"}})
		flowID := *link.FlowID
		sent := post(t, env, "/f/"+flowID+"/identify", url.Values{})
		if sent.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", sent.Status, sent.Body)
		}
		verified := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {sent.Session(t)}, "token": {env.Inbox.Token(t, "kay981@example.com")}})
		if verified.Status != http.StatusSeeOther {
			t.Fatalf("verify: %d\n%s", verified.Status, verified.Body)
		}
		if f := getFlow(t, env, flowID); f.UserID == nil || *f.UserID != known.ID {
			t.Fatalf("the flow's payee: %v, want %s", f.UserID, known.ID)
		}
		get(t, env, verified.Location()).Has(t, "Get paid", "Choose where to send $2.00.")
		claim(t, env, flowID, verified.Session(t), known.ID)
	})

	t.Run("an outsider learns nothing of the email's account", func(t *testing.T) {
		clock.Advance(time.Minute)
		// The same link twice over, but for the email: one held by a user, one by nobody.
		pages := make([]string, 2)
		for i, email := range []string{"kay981@example.com", "kxy984@example.com"} {
			flowID := *createLink(t, env, map[string]any{"amount": 2_00, "payee": map[string]string{"first_name": "Kay", "email": email}}).FlowID
			first := get(t, env, "/f/"+flowID)
			sent := post(t, env, "/f/"+flowID+"/identify", url.Values{})
			wrong := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {sent.Session(t)}, "token": {"000000"}})
			if wrong.Status != http.StatusUnprocessableEntity {
				t.Fatalf("a wrong code: %d\n%s", wrong.Status, wrong.Body)
			}
			for _, p := range []page{first, get(t, env, sent.Location()), wrong} {
				pages[i] += anonymous(p.Body, flowID)
			}
		}
		if pages[0] != pages[1] {
			t.Fatalf("the pages differ with the account:\n%s\n----\n%s", pages[0], pages[1])
		}
	})

	t.Run("an outsider without the email's code binds and makes nobody", func(t *testing.T) {
		clock.Advance(time.Minute)
		link := createLink(t, env, map[string]any{"amount": 2_00, "payee": map[string]string{"first_name": "Kay", "email": "kay981@example.com"}})
		flowID := *link.FlowID
		// Another flow's email code, for the same address.
		elsewhere := *createLink(t, env, map[string]any{"amount": 1_00, "payee": map[string]string{"email": "kay981@example.com"}}).FlowID
		post(t, env, "/f/"+elsewhere+"/identify", url.Values{})
		otherFlowsCode := env.Inbox.Token(t, "kay981@example.com")

		clock.Advance(time.Minute)
		sent := post(t, env, "/f/"+flowID+"/identify", url.Values{"country_code": {"1"}, "phone_number": {"4155550982"},
			"first_name": {"Mal"}, "last_name": {"Lory"}, "email": {"mal@example.com"}})
		if sent.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", sent.Status, sent.Body)
		}
		if _, texted := env.Inbox.Last("+1 4155550982"); texted {
			t.Fatal("a code went to the typed phone")
		}
		pending := sent.Session(t)
		oldCode := env.Inbox.Token(t, "kay981@example.com")
		clock.Advance(time.Minute)
		if p := post(t, env, "/f/"+flowID+"/resend", url.Values{"s": {pending}}); p.Status != http.StatusSeeOther {
			t.Fatalf("resend: %d\n%s", p.Status, p.Body)
		}
		tries := []struct {
			name string
			path string
			form url.Values
		}{
			{"another flow's code", "verify", url.Values{"s": {pending}, "token": {otherFlowsCode}}},
			{"the code the resend replaced", "verify", url.Values{"s": {pending}, "token": {oldCode}}},
			{"details before the code", "details", url.Values{"s": {pending}, "first_name": {"Mal"}, "last_name": {"Lory"},
				"country_code": {"1"}, "phone_number": {"4155550982"}}},
			{"details with no session", "details", url.Values{"first_name": {"Mal"}, "last_name": {"Lory"},
				"country_code": {"1"}, "phone_number": {"4155550982"}}},
			{"another flow's proven session", "details", url.Values{"s": {env.Service.SignPayeeSession(payeeEmailSession(elsewhere, true))},
				"first_name": {"Mal"}, "last_name": {"Lory"}, "country_code": {"1"}, "phone_number": {"4155550982"}}},
			{"a payout as nobody", "payout", url.Values{"s": {env.Service.SignPayeeSession(payeeEmailSession(flowID, false))}}},
		}
		for _, tt := range tries {
			p := post(t, env, "/f/"+flowID+"/"+tt.path, tt.form)
			if p.Status < 400 && p.Status != http.StatusSeeOther {
				t.Errorf("%s: %d", tt.name, p.Status)
			}
			if p.Status == http.StatusSeeOther {
				if loc := p.Location(); strings.Contains(get(t, env, loc).Body, `name="phone_number"`) {
					t.Errorf("%s led to the details step", tt.name)
				}
			}
			if f := getFlow(t, env, flowID); f.UserID != nil {
				t.Fatalf("%s bound the flow to %s", tt.name, *f.UserID)
			}
			if users := usersWithEmail(t, env, "mal@example.com"); len(users) != 0 {
				t.Fatalf("%s made a user: %+v", tt.name, users)
			}
		}
		// The right code still works once, and only once.
		code := env.Inbox.Token(t, "kay981@example.com")
		if p := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {code}}); p.Status != http.StatusSeeOther {
			t.Fatalf("the right code: %d\n%s", p.Status, p.Body)
		}
		if p := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {code}}); p.Status < 400 {
			t.Fatalf("the code used again: %d", p.Status)
		}
	})

	t.Run("an address the code cannot reach is said so, with no field to fix", func(t *testing.T) {
		flowID := *createLink(t, env, map[string]any{"amount": 1_00, "payee": map[string]string{"email": "bounce986@example.com"}}).FlowID
		p := post(t, env, "/f/"+flowID+"/identify", url.Values{})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("identify: %d\n%s", p.Status, p.Body)
		}
		p.Has(t, "We could not deliver a code to b•••@example.com; ask the sender of this payout to check the address.")
		if _, ok := inputValue(p, "phone_number"); ok {
			t.Fatalf("the page asks for a phone:\n%s", p.Body)
		}
	})

	t.Run("the limits count", func(t *testing.T) {
		tooMany := func(t *testing.T, p page) {
			t.Helper()
			if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "Too many") {
				t.Fatalf("want a 429 page, got %d\n%s", p.Status, p.Body)
			}
		}
		flowID := *createLink(t, env, map[string]any{"amount": 1_00, "payee": map[string]string{"email": "lim985@example.com"}}).FlowID
		var last page
		for range 11 {
			clock.Advance(time.Minute) // past the gap between two codes
			last = post(t, env, "/f/"+flowID+"/identify", url.Values{})
		}
		tooMany(t, last)
		if n := sentTo(env, "lim985@example.com"); n != 10 {
			t.Errorf("%d codes went out for one flow and address, want 10", n)
		}
	})
}

// TestEmailLinkPerAddressLimit: the identify step of an email link counts against the client
// address like any other.
func TestEmailLinkPerAddressLimit(t *testing.T) {
	t.Parallel()
	env := start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.TrustedProxies = []string{"127.0.0.1"} }))
	fund(t, env, 100_00)
	var last page
	for i := range 31 {
		flowID := *createLink(t, env, map[string]any{"amount": 1_00, "payee": map[string]string{"email": "a" + strings.Repeat("x", i) + "@example.com"}}).FlowID
		last = postWith(t, env, "/f/"+flowID+"/identify", url.Values{}, map[string]string{"Origin": "null", "X-Forwarded-For": "203.0.113.40"})
	}
	if last.Status != http.StatusTooManyRequests {
		t.Fatalf("the 31st try from one address: %d\n%s", last.Status, last.Body)
	}
}

// payeeEmailSession is the session of whoever asked for the email code of flowID, before
// (proven false) or after entering it, with no user yet.
func payeeEmailSession(flowID string, proven bool) service.PayeeSession {
	return service.PayeeSession{FlowID: flowID, ByEmail: true, Verified: proven}
}

// claim adds a PayPal method as the verified payee userID of flowID and pays the flow's link out
// to it; the link is then claimed by userID.
func claim(t *testing.T, env *servicetest.Env, flowID, s, userID string) {
	t.Helper()
	p := post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"pay@example.com"}}))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("payout method: %d\n%s", p.Status, p.Body)
	}
	methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, userID)
	if err != nil || len(methods) == 0 {
		t.Fatalf("methods: %v %v", methods, err)
	}
	pay := get(t, env, p.Location())
	if p := post(t, env, "/f/"+flowID+"/payout", url.Values{"s": {pay.Session(t)}, "account_id": {methods[len(methods)-1].ID}}); p.Status != http.StatusSeeOther {
		t.Fatalf("payout: %d\n%s", p.Status, p.Body)
	}
	hf, err := env.Service.OpenHostedFlow(ctx, flowID)
	if err != nil || hf.Link.Status != payouts.LinkClaimed || hf.Link.ClaimedUserID == nil || *hf.Link.ClaimedUserID != userID {
		t.Fatalf("the link after the payout: %+v %v", hf.Link, err)
	}
}

// sentTo counts the messages sent to the address to.
func sentTo(env *servicetest.Env, to string) int {
	n := 0
	for _, m := range env.Inbox.Messages() {
		if m.To == to {
			n++
		}
	}
	return n
}

// usersWithEmail lists the app's users whose email is email.
func usersWithEmail(t *testing.T, env *servicetest.Env, email string) []payouts.User {
	t.Helper()
	list, err := env.Service.ListUsers(ctx, env.AppID, payouts.Page{Limit: 100}, payouts.UserFilter{Search: email})
	if err != nil {
		t.Fatal(err)
	}
	var out []payouts.User
	for _, u := range list.Data {
		if strings.EqualFold(u.Email, email) {
			out = append(out, u)
		}
	}
	return out
}

// anonymous is a page's body without what differs between any two flows: their ids, sessions,
// masked emails and asset hashes.
func anonymous(body, flowID string) string {
	body = strings.ReplaceAll(body, flowID, "FLOW")
	body = regexp.MustCompile(`name="s" value="[^"]*"`).ReplaceAllString(body, `name="s" value="S"`)
	return regexp.MustCompile(`[a-z]•••@example\.com|[a-z0-9]+@example\.com`).ReplaceAllString(body, "EMAIL")
}
