package hosted_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
)

// inputValue returns the value of the page's input named name, and whether there is one.
func inputValue(p page, name string) (string, bool) {
	m := regexp.MustCompile(`name="` + regexp.QuoteMeta(name) + `" type="[^"]*" value="([^"]*)"`).FindStringSubmatch(p.Body)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

// TestIdentifyKnownPayee: the identify step shows what the payout link already says about its
// payee, so the payee checks it rather than typing it again, and a number typed the usual ways
// is the number the link names.
func TestIdentifyKnownPayee(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 100_00)
	bo := createUser(t, env, "Bo", "D", "bo409@example.com", "4155550409")
	tests := []struct {
		name  string
		link  map[string]any
		shown map[string]string // input name -> value; "" = no such input
	}{
		{"name, email and phone", map[string]any{"amount": 1_00, "payee": map[string]string{"first_name": "Zoë",
			"last_name": "García-López", "email": "zoe@example.com", "country_code": "1", "phone_number": "415-555-0401"}},
			map[string]string{"first_name": "Zoë", "last_name": "García-López", "email": "zoe@example.com",
				"country_code": "1", "phone_number": "4155550401"}},
		{"phone only", map[string]any{"amount": 1_00, "payee": map[string]string{"phone_number": "4155550402"}},
			map[string]string{"phone_number": "4155550402", "first_name": ""}},
		{"issued to a user", map[string]any{"amount": 1_00, "user_id": bo.ID},
			map[string]string{"phone_number": "", "first_name": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flowID := *createLink(t, env, tc.link).FlowID
			p := get(t, env, "/f/"+flowID)
			for name, want := range tc.shown {
				got, ok := inputValue(p, name)
				if want == "" && ok && got != "" {
					t.Errorf("%s shows %q, want it empty or absent", name, got)
				}
				if want != "" && got != want {
					t.Errorf("%s shows %q (present %v), want %q\n%s", name, got, ok, want, p.Body)
				}
			}
		})
	}

	t.Run("the pre-filled form, number typed with punctuation, sends the code", func(t *testing.T) {
		flowID := *createLink(t, env, tests[0].link).FlowID
		form := url.Values{}
		for name, v := range tests[0].shown {
			form.Set(name, v)
		}
		form.Set("phone_number", "(415) 555-0401")
		p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), form)
		if p.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", p.Status, p.Body)
		}
		if _, sent := env.Inbox.Last("+1 4155550401"); !sent {
			t.Error("no code went to the link's phone")
		}
	})
}

// TestIdentifyBindsOnlyTheProvenPayee: over every shape of link (issued to a user, naming a
// phone, an email, both, nobody; and a flow with no link) and every identify input an attacker
// holding the flow can type (the victim's phone, the victim's email, their own), the flow binds
// only a user whose contact the code went to, and the victim's account is never reached: no
// method is added to it and its wallet keeps its money (issue 44's takeover).
func TestIdentifyBindsOnlyTheProvenPayee(t *testing.T) {
	t.Parallel()
	onEngines(t, testIdentifyBindsOnlyTheProvenPayee)
}

func testIdentifyBindsOnlyTheProvenPayee(t *testing.T, engine []servicetest.Option) {
	clock := testclock.New(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	env := start(t, append(engine, servicetest.WithClock(clock))...)
	fund(t, env, 1_000_00)
	const victimPhone, victimEmail = "4155550901", "victim@example.com"
	victim := createUser(t, env, "Vic", "Tim", victimEmail, victimPhone)
	if r := env.Do(t, "POST", "/v2/transfers", map[string]any{"amount": -500_00, "user_id": victim.ID}); r.Status >= 300 {
		t.Fatalf("fund the victim: %d %s", r.Status, r.Body)
	}
	attacker := createUser(t, env, "Mal", "Lory", "mal@example.com", "4155550902")

	typed := func(phone, email string) url.Values {
		return url.Values{"country_code": {"1"}, "phone_number": {phone}, "first_name": {"Mal"},
			"last_name": {"Lory"}, "email": {email}}
	}
	tests := []struct {
		name   string
		link   map[string]any // nil: a flow with no payout link
		form   url.Values
		codeTo string // where the code goes; "" when identify is refused
		// newUser: the code's holder becomes a new user rather than an existing one.
		newUser bool
	}{
		{"issued to the attacker, victim's phone", map[string]any{"user_id": attacker.ID}, typed(victimPhone, "mal@example.com"), "", false},
		{"issued to the attacker, own phone", map[string]any{"user_id": attacker.ID}, typed("4155550902", ""), "+1 4155550902", false},
		{"names the attacker's phone, victim's phone", map[string]any{"payee": map[string]string{"country_code": "1", "phone_number": "4155550911"}},
			typed(victimPhone, "x911@example.com"), "", false},
		{"names the attacker's phone, victim's email", map[string]any{"payee": map[string]string{"country_code": "1", "phone_number": "4155550912"}},
			typed("4155550912", victimEmail), "", false},
		{"names the attacker's phone, own contacts", map[string]any{"payee": map[string]string{"country_code": "1", "phone_number": "4155550913"}},
			typed("4155550913", "x913@example.com"), "+1 4155550913", true},
		{"names the attacker's email, victim's phone", map[string]any{"payee": map[string]string{"first_name": "Mal", "email": "x921@example.com"}},
			typed(victimPhone, "x921@example.com"), "x921@example.com", true},
		// What is typed beside a link's email is never read: the code goes to the link's email.
		{"names the attacker's email, victim's email", map[string]any{"payee": map[string]string{"first_name": "Mal", "email": "x922@example.com"}},
			typed(victimPhone, victimEmail), "x922@example.com", true},
		{"names an existing attacker's email, victim's phone", map[string]any{"payee": map[string]string{"first_name": "Mal", "email": "mal@example.com"}},
			typed(victimPhone, "mal@example.com"), "mal@example.com", false},
		{"names phone and email, victim's phone", map[string]any{"payee": map[string]string{"email": "x931@example.com", "country_code": "1", "phone_number": "4155550931"}},
			typed(victimPhone, "x931@example.com"), "", false},
		{"names phone and email, victim's email", map[string]any{"payee": map[string]string{"email": "x932@example.com", "country_code": "1", "phone_number": "4155550932"}},
			typed("4155550932", victimEmail), "", false},
		{"names nobody, victim's phone", map[string]any{}, typed(victimPhone, "x941@example.com"), "+1 " + victimPhone, false},
		{"names nobody, victim's email", map[string]any{}, typed("4155550942", victimEmail), "", false},
		{"names nobody, own contacts", map[string]any{}, typed("4155550943", "x943@example.com"), "+1 4155550943", true},
		{"no link, victim's phone", nil, typed(victimPhone, "x951@example.com"), "+1 " + victimPhone, false},
		{"no link, victim's email", nil, typed("4155550952", victimEmail), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.Advance(time.Minute) // past the gap between two codes to one user
			var flowID string
			if tt.link == nil {
				flowID = createFlow(t, env, map[string]any{"steps": []string{"manage-payouts"}}).ID
			} else {
				tt.link["amount"] = 5_00
				flowID = *createLink(t, env, tt.link).FlowID
			}
			before := len(env.Inbox.Messages())
			p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), tt.form)
			if tt.codeTo == "" {
				if p.Status != http.StatusUnprocessableEntity {
					t.Fatalf("identify: %d, want 422\n%s", p.Status, p.Body)
				}
				if n := len(env.Inbox.Messages()); n != before {
					t.Fatalf("a refused identify sent %d codes", n-before)
				}
				return
			}
			if p.Status != http.StatusSeeOther {
				t.Fatalf("identify: %d, want 303\n%s", p.Status, p.Body)
			}
			msgs := env.Inbox.Messages()
			if len(msgs) != before+1 || msgs[len(msgs)-1].To != tt.codeTo {
				t.Fatalf("codes sent: %+v, want one to %s", msgs[before:], tt.codeTo)
			}
			if tt.codeTo == "+1 "+victimPhone {
				return // only the victim can read it: the flow stays unbound
			}
			verified := enterCode(t, env, flowID, p.Session(t), tt.codeTo, tt.form)
			f := getFlow(t, env, flowID)
			switch {
			case f.UserID == nil:
				t.Fatal("verifying bound nobody")
			case *f.UserID == victim.ID:
				t.Fatal("the flow is bound to the victim")
			case tt.newUser == (*f.UserID == attacker.ID):
				t.Fatalf("bound %s, want a new user %v", *f.UserID, tt.newUser)
			}
			s := verified.Session(t)
			post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"mal@example.com"}}))
			methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, victim.ID)
			if err != nil || len(methods) != 0 {
				t.Fatalf("the victim's methods: %+v %v", methods, err)
			}
		})
	}
	if u, err := env.Service.GetUser(ctx, env.AppID, victim.ID); err != nil || u.Wallet.Amount != 500_00 {
		t.Fatalf("the victim's wallet: %+v %v", u, err)
	}
}

// TestUnprovenContactFindsNobody: the phone a payee typed beside a link's email, unproven, makes
// no user theirs: its real holder, identifying by it, becomes a user of their own, and a code for
// the typist's user goes to the email they proved, never to that phone.
func TestUnprovenContactFindsNobody(t *testing.T) {
	t.Parallel()
	onEngines(t, testUnprovenContactFindsNobody)
}

func testUnprovenContactFindsNobody(t *testing.T, engine []servicetest.Option) {
	clock := testclock.New(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	env := start(t, append(engine, servicetest.WithClock(clock))...)
	fund(t, env, 100_00)
	const phone = "4155550961"
	emailLink := createLink(t, env, map[string]any{"amount": 1_00, "payee": map[string]string{"first_name": "Mal", "email": "x961@example.com"}})
	x := identifyAndVerify(t, env, *emailLink.FlowID, "x961@example.com", url.Values{"country_code": {"1"},
		"phone_number": {phone}, "first_name": {"Mal"}, "last_name": {"Lory"}, "email": {"x961@example.com"}})

	clock.Advance(time.Minute)
	phoneLink := createLink(t, env, map[string]any{"amount": 1_00, "payee": map[string]string{"country_code": "1", "phone_number": phone}})
	holder := identifyAndVerify(t, env, *phoneLink.FlowID, "+1 "+phone, url.Values{"country_code": {"1"},
		"phone_number": {phone}, "first_name": {"Pat"}, "last_name": {"Holder"}, "email": {"pat961@example.com"}})
	if holder == x {
		t.Fatal("the phone's holder was bound to the user whose phone was only typed")
	}

	clock.Advance(time.Minute)
	issued := createLink(t, env, map[string]any{"amount": 1_00, "user_id": x})
	if got := identifyAndVerify(t, env, *issued.FlowID, "x961@example.com", url.Values{"country_code": {"1"}, "phone_number": {phone}}); got != x {
		t.Fatalf("the link issued to the typist bound %s", got)
	}
}

// identifyAndVerify identifies on a flow with form, checks that the one code sent went to codeTo,
// enters it (and form's names and phone when the page asks for them after it), and returns the
// user the flow is then bound to.
func identifyAndVerify(t *testing.T, env *servicetest.Env, flowID, codeTo string, form url.Values) string {
	t.Helper()
	before := len(env.Inbox.Messages())
	p := post(t, env, "/f/"+flowID+"/identify", form)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("identify: %d\n%s", p.Status, p.Body)
	}
	if msgs := env.Inbox.Messages(); len(msgs) != before+1 || msgs[before].To != codeTo {
		t.Fatalf("codes sent: %+v, want one to %s", msgs[before:], codeTo)
	}
	enterCode(t, env, flowID, p.Session(t), codeTo, form)
	f := getFlow(t, env, flowID)
	if f.UserID == nil {
		t.Fatal("verifying bound nobody")
	}
	return *f.UserID
}

// enterCode enters the code last sent to codeTo as the payee of the pending session on flowID;
// when the code proved a link's email nobody holds, it gives form's names and phone on the
// details page that follows. It returns the last answer, a redirect into the flow's steps.
func enterCode(t *testing.T, env *servicetest.Env, flowID, pending, codeTo string, form url.Values) page {
	t.Helper()
	p := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {env.Inbox.Token(t, codeTo)}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("verify: %d\n%s", p.Status, p.Body)
	}
	next := get(t, env, p.Location())
	if !strings.Contains(next.Body, `action="/f/`+flowID+`/details`) {
		return p
	}
	details := url.Values{"s": {next.Session(t)}}
	for _, name := range []string{"first_name", "last_name", "country_code", "phone_number"} {
		details.Set(name, form.Get(name))
	}
	if p = post(t, env, "/f/"+flowID+"/details", details); p.Status != http.StatusSeeOther {
		t.Fatalf("details: %d\n%s", p.Status, p.Body)
	}
	return p
}
