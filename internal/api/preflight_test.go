package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestPreflightPayout checks the dry run of POST /v2/payouts over HTTP: the problems of a request
// the real one would refuse, nothing of another app's, and bad bodies refused as on the real route.
func TestPreflightPayout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	addMethod(t, w.env, w.app, w.user.ID, paypalBody)
	addMethod(t, w.env, w.other, w.otherUser.ID, paypalBody)
	const path = "/v2/payouts/preflight"
	answer := func(t *testing.T, as *payouts.Credentials, body any) payouts.Preflight {
		t.Helper()
		var pf payouts.Preflight
		call{method: "POST", path: path, body: body, as: as, status: http.StatusOK}.do(t, w.env).Decode(t, &pf)
		return pf
	}
	tests := []struct {
		name string
		as   *payouts.Credentials
		body map[string]any
		code string // the one problem; "" for none
	}{
		{"a payout that passes", nil, map[string]any{"user_id": w.user.ID, "amount": 1000, "platform": "paypal", "fund": true}, ""},
		{"no venmo method", nil, map[string]any{"user_id": w.user.ID, "amount": 1000, "platform": "venmo", "fund": true}, payouts.PPayoutMethodMissing},
		{"the user's wallet short", nil, map[string]any{"user_id": w.user.ID, "amount": 100_00, "platform": "paypal"}, payouts.PInsufficientFunds},
		{"a negative amount", nil, map[string]any{"user_id": w.user.ID, "amount": -5, "platform": "paypal"}, payouts.PInvalidInput},
		{"another app's user", nil, map[string]any{"user_id": w.otherUser.ID, "amount": 1000, "platform": "paypal", "fund": true}, payouts.PUserNotFound},
		{"our user, asked by the other app", &w.other, map[string]any{"user_id": w.user.ID, "amount": 1000, "platform": "paypal", "fund": true}, payouts.PUserNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pf := answer(t, tt.as, tt.body)
			switch {
			case tt.code == "" && (!pf.OK || len(pf.Problems) != 0):
				t.Fatalf("preflight = %+v, want ok", pf)
			case tt.code != "" && (pf.OK || len(pf.Problems) != 1 || pf.Problems[0].Code != tt.code):
				t.Fatalf("preflight = %+v, want one %s", pf, tt.code)
			case tt.code == payouts.PUserNotFound && strings.Contains(fmt.Sprint(pf), "ada"):
				t.Fatalf("the answer tells of another app's user: %+v", pf)
			}
		})
	}
	before := getUser(t, w.env, w.user.ID)
	answer(t, nil, map[string]any{"user_id": w.user.ID, "amount": 40_00, "platform": "paypal"})
	if after := getUser(t, w.env, w.user.ID); after.Wallet != before.Wallet {
		t.Fatalf("the preflight moved money: wallet %+v, then %+v", before.Wallet, after.Wallet)
	}
	runCalls(t, w.env, badBodies("POST", path, `{"user_id": "`+w.user.ID+`", "amount": 100, "platform": 7}`, "platform"))
	// An amount that does not decode is the body's fault: 400. One that decodes but is out of
	// range is a problem the real request names, so the preflight names it too.
	for _, c := range amountBodies("POST", path, `{"user_id": "`+w.user.ID+`", "platform": "paypal", "amount": %s}`) {
		if c.name == "amount over the maximum" || c.name == "amount -2^63" {
			if pf := answer(t, nil, c.body); pf.OK || pf.Problems[0].Field != "amount" {
				t.Errorf("%s: preflight = %+v", c.name, pf)
			}
			continue
		}
		runCalls(t, w.env, []call{c})
	}
}

// TestPreflightBatch checks POST /v2/payouts/preflight-batch: an item per request, each checked
// after the ones before it, and a batch out of bounds refused whole.
func TestPreflightBatch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	addMethod(t, w.env, w.app, w.user.ID, paypalBody)
	const path = "/v2/payouts/preflight-batch"
	payout := func(amount int64) map[string]any {
		return map[string]any{"payout": map[string]any{"user_id": w.user.ID, "amount": amount, "platform": "paypal", "fund": true, "tax_exempt": true}}
	}
	// The app holds $99,950.00 after the world's transfer: the second item finds it spent.
	var got payouts.PreflightBatch
	call{method: "POST", path: path, body: map[string]any{"items": []any{
		payout(90_000_00), payout(10_000_00),
		map[string]any{"transfer": map[string]any{"user_id": w.user.ID, "amount": -5_00}},
	}}, status: http.StatusOK}.do(t, w.env).Decode(t, &got)
	if got.OK || len(got.Items) != 3 || !got.Items[0].OK || !got.Items[1].Has(payouts.PInsufficientFunds) || !got.Items[2].OK {
		t.Fatalf("batch = %+v", got)
	}
	tooMany := make([]any, payouts.MaxPreflightItems+1)
	for i := range tooMany {
		tooMany[i] = payout(1)
	}
	runCalls(t, w.env, []call{
		{name: "no items", method: "POST", path: path, body: map[string]any{"items": []any{}}, status: 400, code: payouts.EInvalidInput, field: "items"},
		{name: "too many items", method: "POST", path: path, body: map[string]any{"items": tooMany}, status: 400, code: payouts.EInvalidInput, field: "items"},
		{name: "an item of neither kind", method: "POST", path: path, body: map[string]any{"items": []any{map[string]any{}}}, status: 400, code: payouts.EInvalidInput, field: "items[0]"},
	})
	runCalls(t, w.env, badBodies("POST", path, `{"items": {"payout": {}}}`, "items"))
}
