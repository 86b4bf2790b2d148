package hosted_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// TestClaimOnlyByNamedPayee: a payout link is claimed only by the payee it names, and a link
// that names nobody belongs to the first payee who verifies a phone, and to no other after.
func TestClaimOnlyByNamedPayee(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 100_00)

	t.Run("a named phone", func(t *testing.T) {
		link := createLink(t, env, map[string]any{"amount": 5_00,
			"payee": map[string]string{"first_name": "Cy", "country_code": "1", "phone_number": "4155550301"}})
		p := post(t, env, "/f/"+*link.FlowID+"/identify"+keyed(t, env, *link.FlowID), ada("4155550302"))
		if p.Status != http.StatusUnprocessableEntity || p.FieldError("phone_number") == "" {
			t.Fatalf("identify with another phone: %d, phone error %q", p.Status, p.FieldError("phone_number"))
		}
		if _, sent := env.Inbox.Last("+1 4155550302"); sent {
			t.Error("a code went to a phone the link does not name")
		}
		signIn(t, env, *link.FlowID, ada("4155550301"))
	})

	t.Run("a named email", func(t *testing.T) {
		link := createLink(t, env, map[string]any{"amount": 5_00,
			"payee": map[string]string{"first_name": "Di", "email": "di@example.com"}})
		// What is typed is not read: the code goes to the named email, never to the phone.
		p := post(t, env, "/f/"+*link.FlowID+"/identify"+keyed(t, env, *link.FlowID), ada("4155550303"))
		if p.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", p.Status, p.Body)
		}
		m, sent := env.Inbox.Last("di@example.com")
		if !sent || servicetest.TokenPattern.FindString(m.Body) == "" {
			t.Fatalf("no code went to the named email: %+v", m)
		}
		if _, sent := env.Inbox.Last("+1 4155550303"); sent {
			t.Error("the code went to the phone instead of the named email")
		}
	})

	t.Run("nobody named: the first verified phone", func(t *testing.T) {
		link := createLink(t, env, map[string]any{"amount": 5_00})
		flowID := *link.FlowID
		pending := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), ada("4155550305")).Session(t)
		signIn(t, env, flowID, ada("4155550304"))
		if f := getFlow(t, env, flowID); f.UserID == nil {
			t.Fatal("verifying did not bind the flow to the payee")
		}
		p := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {pending}, "token": {env.Inbox.Token(t, "+1 4155550305")}})
		if p.Status != http.StatusForbidden {
			t.Errorf("a second phone verified on a claimed-for link: %d", p.Status)
		}
		if p := post(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), ada("4155550306")); p.Status != http.StatusUnprocessableEntity {
			t.Errorf("a third phone identified after the first verified: %d", p.Status)
		}
	})
}

// TestPayoutStepPaysTheLink: the payout step pays the link's amount; the rest of the wallet
// goes only when the payee asks for it.
func TestPayoutStepPaysTheLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		wholeWallet bool
		want        payouts.Money
	}{
		{"the link's amount", false, 4_00},
		{"the whole wallet, asked for", true, 4_00 + 6_00},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := start(t)
			fund(t, env, 100_00)
			phone := "41555503" + strconv.Itoa(10+i)
			who := ada(phone)
			user, err := env.Service.CreateUser(ctx, env.AppID, payouts.CreateUserRequest{FirstName: "Ada", LastName: "L",
				Email: who.Get("email"), CountryCode: "1", PhoneNumber: phone})
			if err != nil {
				t.Fatal(err)
			}
			if r := env.Do(t, "POST", "/v2/transfers", map[string]any{"amount": -6_00, "user_id": user.ID}); r.Status >= 300 {
				t.Fatalf("transfer: %d %s", r.Status, r.Body)
			}
			link := createLink(t, env, map[string]any{"amount": 4_00, "user_id": user.ID})
			s := signIn(t, env, *link.FlowID, who)
			p := post(t, env, "/f/"+*link.FlowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"ada@example.com"}}))
			pay := get(t, env, p.Location())
			pay.Has(t, "Pay out $4.00", "$6.00")
			methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, user.ID)
			if err != nil || len(methods) != 1 {
				t.Fatalf("methods: %v %v", methods, err)
			}
			form := url.Values{"s": {pay.Session(t)}, "account_id": {methods[0].ID}}
			if tt.wholeWallet {
				form.Set("whole_wallet", "true")
			}
			if p := post(t, env, "/f/"+*link.FlowID+"/payout", form); p.Status != http.StatusSeeOther {
				t.Fatalf("payout: %d\n%s", p.Status, p.Body)
			}
			got, err := env.Service.ListTransfers(ctx, env.AppID, payouts.Page{Limit: 1},
				payouts.TransferFilter{UserID: user.ID, Type: payouts.TransferPayout})
			if err != nil || len(got.Data) != 1 || got.Data[0].Amount != tt.want {
				t.Fatalf("payout: %+v %v, want %s", got, err, tt.want)
			}
		})
	}
}

// TestIdentifyLimits: identify attempts are limited per link and per client address, with a
// 429 page that says so.
func TestIdentifyLimits(t *testing.T) {
	t.Parallel()
	env := start(t)
	fund(t, env, 100_00)
	tooMany := func(t *testing.T, p page) {
		t.Helper()
		if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "Too many") {
			t.Fatalf("want a 429 page, got %d\n%s", p.Status, p.Body)
		}
	}

	t.Run("per link", func(t *testing.T) {
		link := createLink(t, env, map[string]any{"amount": 1_00})
		var last page
		for i := range 11 {
			last = post(t, env, "/f/"+*link.FlowID+"/identify"+keyed(t, env, *link.FlowID), ada("41555504"+strconv.Itoa(10+i)))
		}
		tooMany(t, last)
		if n := len(env.Inbox.Messages()); n > 10 {
			t.Errorf("%d codes went out for one link", n)
		}
	})
	t.Run("per client address", func(t *testing.T) {
		var last page
		for range 31 {
			f := createFlow(t, env, map[string]any{"steps": []string{"manage-payouts"}})
			last = post(t, env, "/f/"+f.ID+"/identify"+keyed(t, env, f.ID), url.Values{"country_code": {"1"}, "phone_number": {"12"}})
		}
		tooMany(t, last)
	})
}

// TestDeliveryFailure: a phone the sandbox cannot reach (ending 0000) is a problem on the
// phone field, not a server error.
func TestDeliveryFailure(t *testing.T) {
	t.Parallel()
	env := start(t)
	f := createFlow(t, env, map[string]any{"steps": []string{"manage-payouts"}})
	p := post(t, env, "/f/"+f.ID+"/identify"+keyed(t, env, f.ID), ada("4155550000"))
	if p.Status != http.StatusUnprocessableEntity || p.FieldError("phone_number") == "" {
		t.Fatalf("undeliverable phone: %d, phone error %q\n%s", p.Status, p.FieldError("phone_number"), p.Body)
	}
}

// TestIdentifyLimitsSpareTheNamedPayee: whoever else holds a flow's URL spends only their own
// address's tries and codes, so the payee the link names still gets a code from their address;
// a flow that names nobody takes a limited number of different phones, whatever the addresses.
func TestIdentifyLimitsSpareTheNamedPayee(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	env := start(t, servicetest.WithClock(clock), servicetest.WithConfig(func(c *payoutd.Config) {
		c.TrustedProxies = []string{"127.0.0.1"}
	}))
	fund(t, env, 100_00)
	identifyFrom := func(addr, flowID string, form url.Values) page {
		t.Helper()
		return postWith(t, env, "/f/"+flowID+"/identify"+keyed(t, env, flowID), form, map[string]string{"Origin": "null", "X-Forwarded-For": addr})
	}
	const payeePhone = "4155550450"
	payee := ada(payeePhone)
	named := map[string]any{"amount": 1_00, "payee": map[string]string{"first_name": "Ada", "last_name": "Lovelace",
		"email": payee.Get("email"), "country_code": "1", "phone_number": payeePhone}}

	tests := []struct {
		name    string
		attempt url.Values // what the holder of the URL sends, again and again, from their address
	}{
		{"wrong numbers", ada("4155550451")},
		{"the payee's own number", payee},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flowID := *createLink(t, env, named).FlowID
			var last page
			for range 12 {
				last = identifyFrom("203.0.113.9", flowID, tt.attempt)
			}
			if last.Status != http.StatusTooManyRequests {
				t.Fatalf("the holder's 12th try: %d, want 429\n%s", last.Status, last.Body)
			}
			clock.Advance(time.Minute) // past the gap between two codes to one payee
			if p := identifyFrom("198.51.100.7", flowID, payee); p.Status != http.StatusSeeOther {
				t.Fatalf("the payee, from their address: %d, want 303\n%s", p.Status, p.Body)
			}
		})
	}

	t.Run("a flow that names nobody takes a few different phones", func(t *testing.T) {
		flowID := *createLink(t, env, map[string]any{"amount": 1_00}).FlowID
		for i := range 5 {
			if p := identifyFrom("192.0.2."+strconv.Itoa(i), flowID, ada("41555504"+strconv.Itoa(60+i))); p.Status != http.StatusSeeOther {
				t.Fatalf("phone %d: %d\n%s", i, p.Status, p.Body)
			}
		}
		if p := identifyFrom("192.0.2.99", flowID, ada("4155550470")); p.Status != http.StatusTooManyRequests {
			t.Fatalf("a sixth phone: %d, want 429\n%s", p.Status, p.Body)
		}
		clock.Advance(time.Minute)
		if p := identifyFrom("192.0.2.100", flowID, ada("4155550460")); p.Status != http.StatusSeeOther {
			t.Fatalf("a phone tried before: %d, want 303\n%s", p.Status, p.Body)
		}
	})
}
