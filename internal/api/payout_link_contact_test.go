package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestCorrectPayoutLinkContact corrects the payee of a link whose email bounced, on both
// engines: the link goes to the corrected address, its money, reservation and idempotency key
// stay, and the message queued for the old address is dropped.
func TestCorrectPayoutLinkContact(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
			body := emailDelivery(40_00, "grace@bounce.example.com")
			body["idempotency_key"] = "0b9d6c3e-5f0a-4a57-9a59-7c1d2e3f4a5b"
			l := createLink(t, env, creds, body)
			if deliver(t, env); getLink(t, env, l.ID).Status != payouts.LinkDeliveryFailed {
				t.Fatalf("the link to a bouncing address is %s, want delivery_failed", getLink(t, env, l.ID).Status)
			}
			before := balancesOf(t, env, creds, user.ID)

			var got payouts.PayoutLink
			call{method: "POST", path: "/v2/payout-links/" + l.ID + "/contact", as: &creds, status: http.StatusOK,
				body: map[string]any{"payee": map[string]any{"first_name": "Grace", "last_name": "Hopper", "email": " grace@example.com "}}}.
				do(t, env).Decode(t, &got)
			if got.Status != payouts.LinkDeliveryPending || got.Payee.Email != "grace@example.com" || got.Amount != 40_00 ||
				*got.TransferID != *l.TransferID || *got.FlowID != *l.FlowID {
				t.Fatalf("corrected link: %+v", got)
			}
			if after := balancesOf(t, env, creds, user.ID); after != before {
				t.Fatalf("correcting moved money: %+v, then %+v", before, after)
			}
			if n := deliver(t, env); n != 1 {
				t.Fatalf("delivered %d messages, want the corrected one", n)
			}
			if got := getLink(t, env, l.ID); got.Status != payouts.LinkDelivered {
				t.Fatalf("after delivery to the corrected address the link is %s", got.Status)
			}
			m, sent := env.Inbox.Last("grace@example.com")
			if !sent || !strings.Contains(m.Body, getLink(t, env, l.ID).Link) {
				t.Fatalf("the corrected address got no link: %+v", m)
			}
			var replay payouts.PayoutLink
			call{method: "POST", path: "/v2/payout-links", as: &creds, body: body, status: http.StatusOK}.do(t, env).Decode(t, &replay)
			if replay.ID != l.ID {
				t.Fatalf("the idempotency key now makes %s, want the corrected link %s", replay.ID, l.ID)
			}
		})
	}
}

// TestCorrectPayoutLinkContactQueued: correcting a link whose message has not gone out yet drops
// that message, so the old contact never gets the link.
func TestCorrectPayoutLinkContactQueued(t *testing.T) {
	t.Parallel()
	env, creds, _ := startWithUser(t, 1_000_00, frozen()...)
	l := createLink(t, env, creds, smsDelivery(40_00, "4155550123"))
	call{method: "POST", path: "/v2/payout-links/" + l.ID + "/contact", as: &creds, status: http.StatusOK,
		body: map[string]any{"payee": map[string]any{"first_name": "Alan", "phone_number": "4155550124"}}}.do(t, env)
	if n := deliver(t, env); n != 1 {
		t.Fatalf("delivered %d messages, want only the corrected one", n)
	}
	if _, sent := env.Inbox.Last("+1 4155550123"); sent {
		t.Fatal("the old number got the link after the correction")
	}
	if _, sent := env.Inbox.Last("+1 4155550124"); !sent {
		t.Fatal("the corrected number got no link")
	}
}

// TestCorrectPayoutLinkContactRefused: every refusal is the API's error body and changes
// nothing: bad contacts, links that reached someone or were claimed, canceled, bound to a
// verified payee or issued to a user, another app's link.
func TestCorrectPayoutLinkContactRefused(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			ctx := context.Background()
			env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
			bounced := func(email string) payouts.PayoutLink {
				l := createLink(t, env, creds, emailDelivery(10_00, email))
				deliver(t, env)
				return l
			}
			open := bounced("ada@bounce.example.com")
			canceled := bounced("bo@bounce.example.com")
			call{method: "DELETE", path: "/v2/payout-links/" + canceled.ID, as: &creds, status: http.StatusOK}.do(t, env)
			claimed := bounced("cy@bounce.example.com")
			if _, err := env.Service.ClaimPayoutLink(ctx, claimed.ID, user.ID); err != nil {
				t.Fatal(err)
			}
			delivered := createLink(t, env, creds, emailDelivery(10_00, "ed@example.com"))
			deliver(t, env)
			bare := createLink(t, env, creds, map[string]any{"amount": 10_00, "payee": map[string]any{"email": "fay@example.com"}})
			toUser := createLink(t, env, creds, map[string]any{"amount": 10_00, "user_id": user.ID, "delivery": map[string]any{"method": "email"}})
			sms := createLink(t, env, creds, smsDelivery(10_00, "4155550000"))
			deliver(t, env)
			other := env.CreateApp(t, "Other app")
			// Not delivered yet, so that only the payee who verified on its page stands in the way.
			bound := createLink(t, env, creds, emailDelivery(10_00, "di@example.com"))
			env.ProveEmailPayee(t, *bound.FlowID, "192.0.2.1", "di@example.com", payouts.CreateUserRequest{FirstName: "Di",
				LastName: "L", CountryCode: "1", PhoneNumber: "4155550131"})

			email := func(e string) map[string]any { return map[string]any{"payee": map[string]any{"email": e}} }
			path := func(l payouts.PayoutLink) string { return "/v2/payout-links/" + l.ID + "/contact" }
			type refusal struct {
				call
				says string // part of the error's message
			}
			tests := []refusal{
				{call{name: "not an email", path: path(open), body: email("grace@"), status: 400, code: payouts.EInvalidInput, field: "payee.email"}, ""},
				{call{name: "not a phone", path: path(sms), body: map[string]any{"payee": map[string]any{"phone_number": "12"}},
					status: 400, code: payouts.EInvalidInput, field: "payee.phone_number"}, ""},
				{call{name: "no email for an email link", path: path(open), body: map[string]any{"payee": map[string]any{"phone_number": "4155550140"}},
					status: 400, code: payouts.EInvalidInput, field: "payee.email"}, ""},
				{call{name: "no phone for an sms link", path: path(sms), body: email("al@example.com"), status: 400, code: payouts.EInvalidInput, field: "payee.phone_number"}, ""},
				{call{name: "not JSON", path: path(open), body: "{", status: 400, code: payouts.EInvalidInput}, ""},
				{call{name: "canceled", path: path(canceled), body: email("grace@example.com"), status: 422, code: payouts.EInvalidTransaction}, "canceled"},
				{call{name: "claimed", path: path(claimed), body: email("grace@example.com"), status: 422, code: payouts.EInvalidTransaction}, "claimed"},
				{call{name: "bound to a verified payee", path: path(bound), body: email("grace@example.com"), status: 422, code: payouts.EInvalidTransaction}, "verified"},
				{call{name: "delivered", path: path(delivered), body: email("grace@example.com"), status: 422, code: payouts.EInvalidTransaction}, "delivered"},
				{call{name: "a bare link", path: path(bare), body: email("grace@example.com"), status: 422, code: payouts.EInvalidTransaction}, "by the app itself"},
				{call{name: "issued to a user", path: path(toUser), body: email("grace@example.com"), status: 422, code: payouts.EInvalidTransaction}, "issued to a user"},
				{call{name: "another app's link", path: path(open), body: email("grace@example.com"), as: &other, status: 404, code: payouts.ENotFound}, ""},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					l := getLink(t, env, strings.Split(tc.path, "/")[3])
					tc.method = "POST"
					if tc.as == nil {
						tc.as = &creds
					}
					if e := tc.do(t, env).Error(t); !strings.Contains(e.Message, tc.says) {
						t.Errorf("the error says %q, want it to say %q", e.Message, tc.says)
					}
					if got := getLink(t, env, l.ID); got.Status != l.Status || got.Payee != l.Payee {
						t.Errorf("a refused correction changed the link: %+v, then %+v", l, got)
					}
				})
			}
			call{method: "POST", path: "/v2/payout-links/" + strings.Repeat("a", 32) + "/contact", as: &creds, body: email("grace@example.com"),
				status: 404, code: payouts.ENotFound}.do(t, env)
			if n := deliver(t, env); n != 1 {
				t.Fatalf("after the refusals %d messages were due, want only the bound link's own", n)
			}
		})
	}
}
