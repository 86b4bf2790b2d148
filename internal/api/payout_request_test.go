package api_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestPayoutRequests(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			w := newWorld(t, engine.opts()...)
			env := w.env
			addMethod(t, env, w.app, w.user.ID, map[string]any{"platform": "paypal", "email": "ada@example.com"})
			create := func(t *testing.T, body map[string]any) payouts.PayoutRequest {
				t.Helper()
				var r payouts.PayoutRequest
				call{method: "POST", path: "/v2/payout-requests", body: body, status: http.StatusCreated}.do(t, env).Decode(t, &r)
				return r
			}
			review := func(t *testing.T, id, action string, status int) payouts.PayoutRequest {
				t.Helper()
				var r payouts.PayoutRequest
				resp := call{method: "POST", path: "/v2/payout-requests/" + id + "/review", body: map[string]any{"action": action, "reason": "r"}, status: status}.do(t, env)
				if status == 200 {
					resp.Decode(t, &r)
				}
				return r
			}
			known := create(t, map[string]any{"amount": 30_00, "user_id": w.user.ID, "memo": "May"})
			if known.Status != payouts.RequestCreated || known.User == nil || known.User.ID != w.user.ID || known.Memo != "May" {
				t.Fatalf("request %+v", known)
			}
			stranger := create(t, map[string]any{"amount": 10_00, "payee": map[string]any{"email": "bob@example.com", "first_name": "Bob"}})
			refused := create(t, map[string]any{"amount": 5_00, "user_id": w.user.ID})

			t.Run("approving a known user pays them", func(t *testing.T) {
				r := review(t, known.ID, "approve", 200)
				if r.Status != payouts.RequestApproved || r.TransferID == nil || r.PayoutLink == nil ||
					r.PayoutLink.Status != payouts.LinkClaimed || r.PayoutLink.TransferID == nil || *r.PayoutLink.TransferID != *r.TransferID {
					t.Fatalf("approved %+v", r)
				}
				tr := getTransfer(t, env, *r.TransferID)
				if tr.Type != payouts.TransferPayout || tr.Amount != 30_00 {
					t.Errorf("payout %+v", tr)
				}
			})
			t.Run("approving a payee sends a link", func(t *testing.T) {
				r := review(t, stranger.ID, "approve", 200)
				if r.Status != payouts.RequestApproved || r.PayoutLink == nil || r.PayoutLink.Amount != 10_00 || r.User != nil {
					t.Fatalf("approved %+v", r)
				}
			})
			t.Run("rejecting moves no money", func(t *testing.T) {
				r := review(t, refused.ID, "reject", 200)
				if r.Status != payouts.RequestRejected || r.RejectReason != "r" || r.TransferID != nil {
					t.Fatalf("rejected %+v", r)
				}
				review(t, refused.ID, "approve", 422)
			})
			t.Run("list filters by status", func(t *testing.T) {
				var l payouts.List[payouts.PayoutRequest]
				call{method: "GET", path: "/v2/payout-requests?status=approved", status: 200}.do(t, env).Decode(t, &l)
				if len(l.Data) != 2 || l.Data[0].ID != stranger.ID {
					t.Errorf("approved %+v", l)
				}
				call{method: "GET", path: "/v2/payout-requests", as: &w.other, status: 200}.do(t, env).Decode(t, &l)
				if len(l.Data) != 0 {
					t.Errorf("the other app sees %d requests", len(l.Data))
				}
			})

			path := "/v2/payout-requests"
			bad := func(name string, body any, status int, code, field string) call {
				return call{name: name, method: "POST", path: path, body: body, status: status, code: code, field: field}
			}
			calls := badBodies("POST", path, `{"amount": 5, "user_id": 5}`, "user_id")
			calls = append(calls, amountBodies("POST", path, `{"user_id": "`+w.user.ID+`", "amount": %s}`)...)
			calls = append(calls,
				bad("nobody", map[string]any{"amount": 5}, 400, payouts.EInvalidInput, "user_id"),
				bad("negative", map[string]any{"amount": -5, "user_id": w.user.ID}, 400, payouts.EInvalidInput, "amount"),
				bad("bad payee email", map[string]any{"amount": 5, "payee": map[string]any{"email": "x"}}, 400, payouts.EInvalidInput, "payee.email"),
				bad("another app's user", map[string]any{"amount": 5, "user_id": w.otherUser.ID}, 404, payouts.ENotFound, ""),
				call{name: "bad status filter", method: "GET", path: path + "?status=paid", status: 400, code: payouts.EInvalidInput, field: "status"},
				call{name: "bad action", method: "POST", path: path + "/" + refused.ID + "/review", body: map[string]any{"action": "pay"}, status: 400, code: payouts.EInvalidInput, field: "action"},
				call{name: "another app reviews", method: "POST", path: path + "/" + stranger.ID + "/review", as: &w.other, body: map[string]any{"action": "reject"}, status: 404, code: payouts.ENotFound},
				call{name: "another app reads", method: "GET", path: path + "/" + stranger.ID, as: &w.other, status: 404, code: payouts.ENotFound},
			)
			calls = append(calls, notFoundCalls("GET", func(id string) string { return path + "/" + id }, nil, unknownID)...)
			calls = append(calls, pageCalls(path)...)
			runCalls(t, env, calls)
		})
	}
}

func TestSendPayout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	addMethod(t, env, w.app, w.user.ID, map[string]any{"platform": "venmo", "handle": "@ada-l", "country_code": "1", "phone_number": "4155550100"})
	newcomer := createUser(t, env, w.app)
	send := func(t *testing.T, body map[string]any) payouts.PayoutLink {
		t.Helper()
		var l payouts.PayoutLink
		call{method: "POST", path: "/v2/payouts/send-payout", body: body, status: http.StatusCreated}.do(t, env).Decode(t, &l)
		return l
	}
	key := "33333333-3333-4333-8333-333333333333"
	// A known user with a default method is paid at once: the answer is the link they claimed
	// as it was made, its transfer the payout, and reading it back answers the same link.
	paid := send(t, map[string]any{"amount": 12_00, "user_id": w.user.ID, "idempotency_key": key})
	if paid.Status != payouts.LinkClaimed || paid.ClaimedUserID == nil || *paid.ClaimedUserID != w.user.ID ||
		paid.TransferID == nil || paid.Amount != 12_00 || paid.FlowID != nil {
		t.Fatalf("known user: %+v", paid)
	}
	var payout payouts.Transfer
	call{method: "GET", path: "/v2/transfers/" + *paid.TransferID, status: 200}.do(t, env).Decode(t, &payout)
	if payout.Type != payouts.TransferPayout || payout.Amount != 12_00 || payout.PayoutLinkID == nil || *payout.PayoutLinkID != paid.ID {
		t.Errorf("the payout of a link paid at once: %+v", payout)
	}
	again := send(t, map[string]any{"amount": 12_00, "user_id": w.user.ID, "idempotency_key": key})
	var read payouts.PayoutLink
	call{method: "GET", path: "/v2/payout-links/" + paid.ID, status: 200}.do(t, env).Decode(t, &read)
	if first, replay, got := string(mustJSON(t, paid)), string(mustJSON(t, again)), string(mustJSON(t, read)); first != replay || first != got {
		t.Errorf("the request answered\n%s\nits replay\n%s\nGET\n%s", first, replay, got)
	}
	var events payouts.List[payouts.Event]
	call{method: "GET", path: "/v2/events?object_id=" + paid.ID, status: 200}.do(t, env).Decode(t, &events)
	var types []payouts.EventType
	for _, e := range events.Data {
		types = append(types, e.Type)
	}
	if want := []payouts.EventType{payouts.EventPayoutLinkUpdated, payouts.EventPayoutLinkClaimed, payouts.EventPayoutLinkCreated}; !slices.Equal(types, want) {
		t.Errorf("events of a link paid at once %v, want %v (newest first)", types, want)
	}
	call{name: "a link paid at once cannot be canceled", method: "DELETE", path: "/v2/payout-links/" + paid.ID,
		status: 422, code: payouts.EInvalidTransaction}.do(t, env)
	if l := send(t, map[string]any{"amount": 7_00, "user_id": newcomer.ID}); l.Status != payouts.LinkDelivered || l.FlowID == nil || l.ClaimedUserID != nil {
		t.Errorf("user without a method: %+v", l)
	}
	if l := send(t, map[string]any{"amount": 7_00, "payee": map[string]any{"email": "c@example.com"}}); l.Status != payouts.LinkDelivered || l.FlowID == nil {
		t.Errorf("payee: %+v", l)
	}
	path := "/v2/payouts/send-payout"
	calls := badBodies("POST", path, `{"amount": 5, "user_id": 5}`, "user_id")
	calls = append(calls,
		call{name: "more than the app has", method: "POST", path: path, body: map[string]any{"amount": 1_000_000_00, "user_id": w.user.ID}, status: 422, code: payouts.EInsufficientFunds},
		call{name: "another app's user", method: "POST", path: path, body: map[string]any{"amount": 5, "user_id": w.otherUser.ID}, status: 404, code: payouts.ENotFound},
		call{name: "zero", method: "POST", path: path, body: map[string]any{"amount": 0, "user_id": w.user.ID}, status: 400, code: payouts.EInvalidInput, field: "amount"},
	)
	runCalls(t, env, calls)
}
