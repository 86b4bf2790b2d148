package hosted_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestCorrectedLinkRefusesOldPayee: a payee who identified on a link's page with the number it
// named, and got a code, cannot verify with that code once the link's payee is corrected to
// another number (the flow would bind to them and they would claim); the corrected payee
// verifies and claims. On both engines.
func TestCorrectedLinkRefusesOldPayee(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, engine []servicetest.Option) {
		env := start(t, engine...)
		fund(t, env, 100_00)
		link := createLink(t, env, map[string]any{"amount": 7_00, "delivery": map[string]any{"method": "sms"},
			"payee": map[string]string{"first_name": "Cy", "country_code": "1", "phone_number": "4155550351"}})
		flowID := *link.FlowID
		old := post(t, env, "/f/"+flowID+"/identify", ada("4155550351"))
		if old.Status != http.StatusSeeOther {
			t.Fatalf("identify with the named number: %d\n%s", old.Status, old.Body)
		}
		oldCode := env.Inbox.Token(t, "+1 4155550351")

		servicetest.Want[payouts.PayoutLink](t, env.Do(t, "POST", "/v2/payout-links/"+link.ID+"/contact",
			map[string]any{"payee": map[string]string{"first_name": "Cy", "country_code": "1", "phone_number": "4155550352"}}),
			"correct the payee", http.StatusOK)

		p := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {old.Session(t)}, "token": {oldCode}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("the old number's code after the correction: %d, want 422\n%s", p.Status, p.Body)
		}
		p.Has(t, "This payout link was sent to someone else.")
		if f := getFlow(t, env, flowID); f.UserID != nil {
			t.Fatal("the old number's payee bound the flow after the correction")
		}
		if p := post(t, env, "/f/"+flowID+"/identify", ada("4155550351")); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("the old number identified again after the correction: %d", p.Status)
		}
		s := signIn(t, env, flowID, ada("4155550352"))
		user := *getFlow(t, env, flowID).UserID
		p = post(t, env, "/f/"+flowID+"/payout-methods", withSession(s, url.Values{"platform": {"paypal"}, "email": {"cy@example.com"}}))
		if p.Status != http.StatusSeeOther {
			t.Fatalf("add a method: %d\n%s", p.Status, p.Body)
		}
		methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, user)
		if err != nil || len(methods) != 1 {
			t.Fatalf("methods: %v %v", methods, err)
		}
		pay := get(t, env, p.Location())
		if p := post(t, env, "/f/"+flowID+"/payout", url.Values{"s": {pay.Session(t)}, "account_id": {methods[0].ID}}); p.Status != http.StatusSeeOther {
			t.Fatalf("payout: %d\n%s", p.Status, p.Body)
		}
		got := servicetest.Want[payouts.PayoutLink](t, env.Do(t, "GET", "/v2/payout-links/"+link.ID, nil), "get link", http.StatusOK)
		if got.Status != payouts.LinkClaimed || *got.ClaimedUserID != user {
			t.Fatalf("the corrected payee's claim: %+v", got)
		}
	})
}

// TestCorrectedEmailLinkRefusesOldProof: whoever entered the code of the email a link named
// before its payee was corrected has proven the old address, not the one the link names now: they
// can neither give their details (which would make them the new address's payee) nor ask for
// another code with that session. On both engines.
func TestCorrectedEmailLinkRefusesOldProof(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, engine []servicetest.Option) {
		env := start(t, engine...)
		fund(t, env, 100_00)
		link := createLink(t, env, map[string]any{"amount": 6_00, "delivery": map[string]any{"method": "email"},
			"payee": map[string]string{"first_name": "Di", "email": "di-typo@example.com"}})
		flowID := *link.FlowID
		sent := post(t, env, "/f/"+flowID+"/identify", url.Values{})
		if sent.Status != http.StatusSeeOther {
			t.Fatalf("identify: %d\n%s", sent.Status, sent.Body)
		}
		codePage := get(t, env, sent.Location())
		verified := post(t, env, "/f/"+flowID+"/verify", url.Values{"s": {codePage.Session(t)}, "token": {env.Inbox.Token(t, "di-typo@example.com")}})
		if verified.Status != http.StatusSeeOther {
			t.Fatalf("verify the old address: %d\n%s", verified.Status, verified.Body)
		}
		details := get(t, env, verified.Location())

		servicetest.Want[payouts.PayoutLink](t, env.Do(t, "POST", "/v2/payout-links/"+link.ID+"/contact",
			map[string]any{"payee": map[string]string{"first_name": "Di", "email": "di@example.com"}}),
			"correct the payee", http.StatusOK)

		for _, tc := range []struct {
			name, step string
			form       url.Values
		}{
			{"details", "details", url.Values{"s": {details.Session(t)}, "first_name": {"Di"}, "last_name": {"Old"},
				"country_code": {"1"}, "phone_number": {"4155550361"}}},
			{"another code", "resend", url.Values{"s": {codePage.Session(t)}}},
			{"the old code page", "verify", url.Values{"s": {codePage.Session(t)}, "token": {"000000"}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := post(t, env, "/f/"+flowID+"/"+tc.step, tc.form)
				if p.Status < 400 || p.Status >= 500 {
					t.Fatalf("%s with the old address's session after the correction: %d, want a 4xx\n%s", tc.step, p.Status, p.Body)
				}
				if f := getFlow(t, env, flowID); f.UserID != nil {
					t.Fatal("the old address's session bound the flow after the correction")
				}
				if users := usersWithEmail(t, env, "di@example.com"); len(users) != 0 {
					t.Fatalf("the old address's session made the new address's user: %+v", users)
				}
			})
		}
	})
}
