package api_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// createLink makes a payout link as the app with creds; it must answer 201.
func createLink(t *testing.T, env *servicetest.Env, creds payouts.Credentials, body map[string]any) payouts.PayoutLink {
	t.Helper()
	var l payouts.PayoutLink
	call{method: "POST", path: "/v2/payout-links", as: &creds, body: body, status: http.StatusCreated}.do(t, env).Decode(t, &l)
	return l
}

// getLink reads a payout link of the first app.
func getLink(t *testing.T, env *servicetest.Env, id string) payouts.PayoutLink {
	t.Helper()
	var l payouts.PayoutLink
	call{method: "GET", path: "/v2/payout-links/" + id, status: http.StatusOK}.do(t, env).Decode(t, &l)
	return l
}

// deliver sends the payout links waiting for sms or email delivery, as the worker would, and
// returns how many it handled.
func deliver(t *testing.T, env *servicetest.Env) int {
	t.Helper()
	n, err := env.Service.DeliverDue(context.Background(), 100)
	if err != nil {
		t.Fatalf("deliver: %v", err)
	}
	return n
}

// linkIDs lists the ids of links, for comparing lists.
func linkIDs(links []payouts.PayoutLink) []string {
	ids := make([]string, len(links))
	for i, l := range links {
		ids[i] = l.ID
	}
	return ids
}

// emailDelivery and smsDelivery are link bodies delivered to the payee by email or sms.
func emailDelivery(amount int64, email string) map[string]any {
	return map[string]any{"amount": amount, "payee": map[string]any{"first_name": "Grace", "last_name": "Hopper", "email": email},
		"delivery": map[string]any{"method": "email", "message": "Thanks for March"}}
}

func smsDelivery(amount int64, phone string) map[string]any {
	return map[string]any{"amount": amount, "payee": map[string]any{"first_name": "Alan", "last_name": "Turing", "phone_number": phone},
		"delivery": map[string]any{"method": "sms"}}
}

func TestCreatePayoutLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	path := "/v2/payout-links"
	before := balancesOf(t, env, w.app, w.user.ID)

	base := map[string]any{"amount": 25_00}
	bad := func(name string, changes map[string]any, status int, code, field string) call {
		return call{name: name, method: "POST", path: path, body: patch(base, changes), status: status, code: code, field: field}
	}
	invalid := func(name string, changes map[string]any, field string) call {
		return bad(name, changes, http.StatusBadRequest, payouts.EInvalidInput, field)
	}
	calls := badBodies("POST", path, `{"amount": 100, "memo": 5}`, "memo")
	calls = append(calls, amountBodies("POST", path, `{"amount": %s}`)...)
	calls = append(calls,
		invalid("zero amount", map[string]any{"amount": 0}, "amount"),
		invalid("negative amount", map[string]any{"amount": -25_00}, "amount"),
		invalid("missing amount", map[string]any{"amount": nil}, "amount"),
		invalid("malformed user_id", map[string]any{"user_id": "ada"}, "user_id"),
		invalid("user_id a number", map[string]any{"user_id": 7}, "user_id"),
		invalid("payee a string", map[string]any{"payee": "Grace"}, "payee"),
		invalid("payee with a bad email", map[string]any{"payee": map[string]any{"email": "grace@"}}, "payee.email"),
		invalid("payee with a bad phone number", map[string]any{"payee": map[string]any{"phone_number": "555-CALL"}}, "payee.phone_number"),
		invalid("payee with a bad country code", map[string]any{"payee": map[string]any{"phone_number": "4155550123", "country_code": "12345"}}, "payee.country_code"),
		invalid("unknown delivery method", map[string]any{"delivery": map[string]any{"method": "pigeon"}}, "delivery.method"),
		invalid("delivery a string", map[string]any{"delivery": "email"}, "delivery"),
		invalid("delivery message over 500 characters", map[string]any{"delivery": map[string]any{"method": "link", "message": strings.Repeat("m", 501)}}, "delivery.message"),
		invalid("sms without a phone number", map[string]any{"delivery": map[string]any{"method": "sms"}, "payee": map[string]any{"email": "grace@example.com"}}, "payee.phone_number"),
		invalid("email without an email address", map[string]any{"delivery": map[string]any{"method": "email"}, "payee": map[string]any{"phone_number": "4155550123"}}, "payee.email"),
		invalid("unknown payout_fee_party", map[string]any{"payout_fee_party": "payee"}, "payout_fee_party"),
		invalid("memo over 500 characters", map[string]any{"memo": strings.Repeat("m", 501)}, "memo"),
		invalid("metadata over 8 KiB", map[string]any{"metadata": bigMetadata()}, "metadata"),
		invalid("metadata an array", map[string]any{"metadata": []int{1}}, "metadata"),
		invalid("unknown additional step", map[string]any{"additional_steps": []any{"tax-return"}}, "additional_steps"),
		invalid("additional step named twice", map[string]any{"additional_steps": []any{"compliance", map[string]any{"name": "compliance"}}}, "additional_steps"),
		invalid("redirect without redirect_url", map[string]any{"additional_steps": []any{"redirect"}}, "additional_steps"),
		invalid("redirect to a script", map[string]any{"additional_steps": []any{map[string]any{"name": "redirect", "redirect_url": "javascript:alert(1)"}}}, "additional_steps"),
		invalid("additional_steps a string", map[string]any{"additional_steps": "compliance"}, "additional_steps"),
		invalid("additional step a number", map[string]any{"additional_steps": []any{7}}, ""),
		invalid("force_collect_compliance_information a string", map[string]any{"force_collect_compliance_information": "yes"}, "force_collect_compliance_information"),
		invalid("idempotency_key not a UUID", map[string]any{"idempotency_key": "link-1"}, "idempotency_key"),
		bad("unknown user", map[string]any{"user_id": unknownID}, http.StatusNotFound, payouts.ENotFound, ""),
		bad("another app's user", map[string]any{"user_id": w.otherUser.ID}, http.StatusNotFound, payouts.ENotFound, ""),
		bad("more than the app has", map[string]any{"amount": 100_000_00}, http.StatusUnprocessableEntity, payouts.EInsufficientFunds, ""),
	)
	runCalls(t, env, calls)

	// The refused links reserved nothing and exist nowhere.
	if got := balancesOf(t, env, w.app, w.user.ID); got != before {
		t.Fatalf("after refused links: %v, want %v", got, before)
	}
	var list payouts.List[payouts.PayoutLink]
	env.Do(t, "GET", path, nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("refused requests made links: %+v", list.Data)
	}
	env.CheckLedger(t)

	t.Run("delivered as a link", func(t *testing.T) {
		l := createLink(t, env, w.app, map[string]any{"amount": 25_00, "memo": " March ", "metadata": map[string]any{"ref": "L1"},
			"payee": map[string]any{"first_name": "Grace", "last_name": "Hopper", "email": "grace@example.com", "phone_number": "4155550123"}})
		if !payouts.ValidID(l.ID) || l.Amount != 25_00 || l.Status != payouts.LinkDelivered || l.Delivery.Method != payouts.DeliveryLink ||
			l.Link != env.Origin+"/l/"+l.ID || l.Memo != "March" || string(l.Metadata) != `{"ref":"L1"}` ||
			l.ClaimedUserID != nil || l.FlowID == nil || l.TransferID == nil || l.UserID != nil {
			t.Errorf("link %+v", l)
		}
		want := payouts.Payee{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com", CountryCode: "1", PhoneNumber: "4155550123"}
		if l.Payee != want {
			t.Errorf("payee %+v, want %+v", l.Payee, want)
		}
		var f payouts.Flow
		call{method: "GET", path: "/v2/flows/" + *l.FlowID, status: http.StatusOK}.do(t, env).Decode(t, &f)
		if !slices.Equal(f.Steps, []string{payouts.StepPayout}) || f.PayoutLinkID == nil || *f.PayoutLinkID != l.ID || f.UserID != nil {
			t.Errorf("the link's flow %+v", f)
		}
		// The reservation: a pending balance transfer from the app, which the app cannot spend.
		tr := getTransfer(t, env, *l.TransferID)
		if tr.Type != payouts.TransferBalance || tr.Status != payouts.TransferPending || tr.Amount != -25_00 ||
			tr.PayoutLinkID == nil || *tr.PayoutLinkID != l.ID {
			t.Errorf("the link's transfer %+v", tr)
		}
		reserved := balances{before.app, before.appFree - 25_00, before.user, before.userFree}
		if got := balancesOf(t, env, w.app, w.user.ID); got != reserved {
			t.Errorf("after the link: %v, want %v", got, reserved)
		}
		if got := getLink(t, env, l.ID); got.ID != l.ID || got.Status != l.Status || got.Link != l.Link {
			t.Errorf("read back %+v, want %+v", got, l)
		}
	})
	t.Run("for a user, the payee is the user", func(t *testing.T) {
		l := createLink(t, env, w.app, map[string]any{"amount": 10_00, "user_id": w.user.ID})
		want := payouts.Payee{FirstName: w.user.FirstName, LastName: w.user.LastName, Email: w.user.Email,
			CountryCode: w.user.PhoneNumber.CountryCode, PhoneNumber: w.user.PhoneNumber.PhoneNumber}
		if l.Payee != want || l.UserID == nil || *l.UserID != w.user.ID {
			t.Errorf("link %+v, want the payee %+v", l, want)
		}
		var f payouts.Flow
		call{method: "GET", path: "/v2/flows/" + *l.FlowID, status: http.StatusOK}.do(t, env).Decode(t, &f)
		if f.UserID == nil || *f.UserID != w.user.ID {
			t.Errorf("the flow of a user's link belongs to %v", f.UserID)
		}
	})
	t.Run("additional steps run in the flow's order", func(t *testing.T) {
		l := createLink(t, env, w.app, map[string]any{"amount": 5_00, "force_collect_compliance_information": true, "payout_fee_party": "user",
			"additional_steps": []any{map[string]any{"name": "redirect", "redirect_url": "https://example.com/done"}, "id-verification", "payout"}})
		if l.PayoutFeeParty != payouts.FeePartyUser {
			t.Errorf("payout_fee_party %q, want user", l.PayoutFeeParty)
		}
		var f payouts.Flow
		call{method: "GET", path: "/v2/flows/" + *l.FlowID, status: http.StatusOK}.do(t, env).Decode(t, &f)
		want := []string{payouts.StepCompliance, payouts.StepIDVerification, payouts.StepPayout, payouts.StepRedirect}
		if !slices.Equal(f.Steps, want) || f.RedirectURL != "https://example.com/done" {
			t.Errorf("flow steps %v to %q, want %v to https://example.com/done", f.Steps, f.RedirectURL, want)
		}
	})
	env.CheckLedger(t)
}

// TestPayoutLinkIdempotency replays a payout link's idempotency key: the same link answers 200,
// whatever the body, and the app's money is reserved once.
func TestPayoutLinkIdempotency(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	key := uuid.NewString()
	body := map[string]any{"amount": 30_00, "idempotency_key": key, "memo": "first"}
	first := createLink(t, env, w.app, body)
	reserved := balancesOf(t, env, w.app, w.user.ID)

	for _, tt := range []struct {
		name string
		body map[string]any
	}{
		{"same body", body},
		{"another body", patch(body, map[string]any{"amount": 99_00, "memo": "second"})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var again payouts.PayoutLink
			call{method: "POST", path: "/v2/payout-links", body: tt.body, status: http.StatusOK}.do(t, env).Decode(t, &again)
			if again.ID != first.ID || again.Amount != 30_00 || again.Memo != "first" || *again.TransferID != *first.TransferID {
				t.Errorf("replay answered %+v, want the first link %+v", again, first)
			}
			if got := balancesOf(t, env, w.app, w.user.ID); got != reserved {
				t.Errorf("after a replay: %v, want %v (one reservation)", got, reserved)
			}
		})
	}
	var list payouts.List[payouts.PayoutLink]
	env.Do(t, "GET", "/v2/payout-links", nil).Decode(t, &list)
	if len(list.Data) != 1 {
		t.Errorf("%d links after replays, want 1", len(list.Data))
	}
	// The key is the app's own: another app using it makes its own link.
	if theirs := createLink(t, env, w.other, body); theirs.ID == first.ID {
		t.Errorf("another app's request with the same key got this app's link")
	}
}

func TestListPayoutLinks(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	// Each link a second after the last, so that newest first is one order.
	made := func(body map[string]any) payouts.PayoutLink {
		t.Helper()
		env.Clock.Advance(time.Second)
		return createLink(t, env, w.app, body)
	}
	grace := made(map[string]any{"amount": 1_00, "payee": map[string]any{"first_name": "Grace", "last_name": "Hopper", "email": "grace@example.com"}})
	alan := made(emailDelivery(2_00, "alan@example.com"))
	katherine := made(smsDelivery(3_00, "4155550199"))
	canceled := made(map[string]any{"amount": 4_00})
	call{method: "DELETE", path: "/v2/payout-links/" + canceled.ID, status: http.StatusOK}.do(t, env)
	bounced := made(emailDelivery(5_00, "bounce@example.com"))
	if n := deliver(t, env); n != 3 {
		t.Fatalf("delivered %d links, want 3", n)
	}
	theirs := createLink(t, env, w.other, map[string]any{"amount": 1_00, "payee": map[string]any{"last_name": "Hopper"}})

	for _, tt := range []struct {
		name, query string
		want        []payouts.PayoutLink
		hasMore     bool
	}{
		{"all, newest first", "", []payouts.PayoutLink{bounced, canceled, katherine, alan, grace}, false},
		{"delivered", "?status=delivered", []payouts.PayoutLink{katherine, alan, grace}, false},
		{"canceled", "?status=canceled", []payouts.PayoutLink{canceled}, false},
		{"delivery failed", "?status=delivery_failed", []payouts.PayoutLink{bounced}, false},
		{"claimed: none", "?status=claimed", nil, false},
		{"search by last name, any case", "?search=hopper", []payouts.PayoutLink{bounced, alan, grace}, false},
		{"search by email", "?search=alan%40example", []payouts.PayoutLink{alan}, false},
		{"search by phone", "?search=5550199", []payouts.PayoutLink{katherine}, false},
		{"search and status", "?search=hopper&status=delivered", []payouts.PayoutLink{alan, grace}, false},
		{"search for no one", "?search=nobody", nil, false},
		{"search wildcards match themselves", "?search=%25", nil, false},
		{"first page", "?limit=2", []payouts.PayoutLink{bounced, canceled}, true},
		{"next page", "?limit=2&starting_after=" + canceled.ID, []payouts.PayoutLink{katherine, alan}, true},
		{"last page", "?limit=2&starting_after=" + alan.ID, []payouts.PayoutLink{grace}, false},
		{"previous page", "?limit=2&ending_before=" + katherine.ID, []payouts.PayoutLink{bounced, canceled}, false},
		{"trailing slash", "/?status=canceled", []payouts.PayoutLink{canceled}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l payouts.List[payouts.PayoutLink]
			call{method: "GET", path: "/v2/payout-links" + tt.query, status: http.StatusOK}.do(t, env).Decode(t, &l)
			if got, want := linkIDs(l.Data), linkIDs(tt.want); !slices.Equal(got, want) || l.HasMore != tt.hasMore {
				t.Errorf("listed %v (has_more %v), want %v (%v)", got, l.HasMore, want, tt.hasMore)
			}
			if l.Data == nil {
				t.Errorf("data is null, want an array")
			}
		})
	}

	calls := pageCalls("/v2/payout-links")
	calls = append(calls,
		call{name: "unknown status", method: "GET", path: "/v2/payout-links?status=lost", status: 400, code: payouts.EInvalidInput, field: "status"},
		call{name: "search over 100 characters", method: "GET", path: "/v2/payout-links?search=" + strings.Repeat("s", 101), status: 400, code: payouts.EInvalidInput, field: "search"},
		call{name: "another app's cursor", method: "GET", path: "/v2/payout-links?starting_after=" + theirs.ID, status: 400, code: payouts.EInvalidInput},
	)
	runCalls(t, env, calls)
}

func TestGetPayoutLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	mine := createLink(t, env, w.app, map[string]any{"amount": 7_00, "memo": "mine"})
	theirs := createLink(t, env, w.other, map[string]any{"amount": 8_00})
	t.Run("success", func(t *testing.T) {
		got := getLink(t, env, mine.ID)
		if got.ID != mine.ID || got.Amount != 7_00 || got.Memo != "mine" || got.Status != payouts.LinkDelivered || got.Link != mine.Link {
			t.Errorf("link %+v, want %+v", got, mine)
		}
	})
	runCalls(t, env, notFoundCalls("GET", func(id string) string { return "/v2/payout-links/" + id }, nil, theirs.ID))
}

// TestPayoutLinkDelivery sends links by email and sms through the sandbox notifier: each waits
// in delivery_pending until the worker's turn, then is delivered and in the inbox, or, for an
// address the sandbox bounces, delivery_failed and nowhere.
func TestPayoutLinkDelivery(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, frozen()...)
	creds := env.Credentials()
	deposit(t, env, creds, 100_00)
	for _, tt := range []struct {
		name string
		body map[string]any
		to   string
		want payouts.PayoutLinkStatus
	}{
		{"email", emailDelivery(10_00, "grace@example.com"), "grace@example.com", payouts.LinkDelivered},
		{"sms", smsDelivery(10_00, "4155550123"), "+1 4155550123", payouts.LinkDelivered},
		{"email that bounces", emailDelivery(10_00, "bounce@example.com"), "bounce@example.com", payouts.LinkDeliveryFailed},
		{"sms to a number that bounces", smsDelivery(10_00, "4155550000"), "+1 4155550000", payouts.LinkDeliveryFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := createLink(t, env, creds, tt.body)
			if l.Status != payouts.LinkDeliveryPending {
				t.Fatalf("status %s before delivery, want delivery_pending", l.Status)
			}
			if _, ok := env.Inbox.Last(tt.to); ok {
				t.Fatalf("a message to %s before the worker ran", tt.to)
			}
			if n := deliver(t, env); n != 1 {
				t.Fatalf("delivered %d links, want 1", n)
			}
			if got := getLink(t, env, l.ID); got.Status != tt.want {
				t.Fatalf("status %s after delivery, want %s", got.Status, tt.want)
			}
			msg, sent := env.Inbox.Last(tt.to)
			if sent != (tt.want == payouts.LinkDelivered) {
				t.Fatalf("message to %s in the inbox: %v, want %v", tt.to, sent, !sent)
			}
			if sent && (!strings.Contains(msg.Body, l.Link) || !strings.Contains(msg.Body, "$10.00")) {
				t.Errorf("message %+v does not carry the link %s and the amount", msg, l.Link)
			}
			if sent && tt.body["delivery"].(map[string]any)["message"] != nil && !strings.Contains(msg.Body, "Thanks for March") {
				t.Errorf("message %q lacks the app's delivery message", msg.Body)
			}
			if n := deliver(t, env); n != 0 {
				t.Errorf("delivered %d links again", n)
			}
		})
	}
	if n := len(env.Inbox.Messages()); n != 2 {
		t.Errorf("%d messages in the inbox, want 2", n)
	}
}
