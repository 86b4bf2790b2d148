package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func TestAddPayoutMethod(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	path := "/v2/users/" + w.user.ID + "/payout-methods"

	for _, tt := range []struct {
		name string
		body map[string]any
		want payouts.PayoutMethod
	}{
		{"paypal", map[string]any{"platform": "paypal", "email": "ada@example.com"},
			payouts.PayoutMethod{Platform: payouts.PlatformPayPal, Email: "ada@example.com"}},
		{"venmo by handle", map[string]any{"platform": "venmo", "handle": "@ada-venmo"},
			payouts.PayoutMethod{Platform: payouts.PlatformVenmo, Handle: "ada-venmo"}},
		{"cash_app", map[string]any{"platform": "cash_app", "cash_tag": "$ada", "routing_number": "011000015", "account_number": "123456789"},
			payouts.PayoutMethod{Platform: payouts.PlatformCashApp, CashTag: "$ada", Mask: "6789"}},
		{"ach, default", map[string]any{"platform": "ach", "routing_number": "011000015", "account_number": "000123456789", "account_type": "checking", "is_default": true},
			payouts.PayoutMethod{Platform: payouts.PlatformACH, Mask: "6789", Default: true}},
		{"bank_transfer is ach", map[string]any{"platform": "bank_transfer", "routing_number": "011000015", "account_number": "99998888", "account_type": "savings"},
			payouts.PayoutMethod{Platform: payouts.PlatformACH, Mask: "8888"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := call{method: "PUT", path: path, body: tt.body, status: 200}.do(t, env)
			var m payouts.PayoutMethod
			resp.Decode(t, &m)
			if !payouts.ValidID(m.ID) || m.Platform != tt.want.Platform || m.Email != tt.want.Email ||
				m.Handle != tt.want.Handle || m.CashTag != tt.want.CashTag || m.Mask != tt.want.Mask {
				t.Errorf("saved %+v, want %+v", m, tt.want)
			}
			if tt.want.Default && !m.Default {
				t.Errorf("is_default ignored: %+v", m)
			}
			if acct, ok := tt.body["account_number"].(string); ok && strings.Contains(string(resp.Body), acct) {
				t.Errorf("the answer shows the full account number: %s", resp.Body)
			}
		})
	}

	calls := badBodies("PUT", path, `{"platform": 1}`, "platform")
	for _, c := range []struct {
		name  string
		body  any
		field string
	}{
		{"no platform", map[string]any{"email": "ada@example.com"}, "platform"},
		{"unknown platform", map[string]any{"platform": "cheque"}, "platform"},
		{"paypal without email", map[string]any{"platform": "paypal"}, "email"},
		{"paypal with a bad email", map[string]any{"platform": "paypal", "email": "ada"}, "email"},
		{"venmo with neither phone nor handle", map[string]any{"platform": "venmo"}, "phone_number"},
		{"cash_app without cash_tag", map[string]any{"platform": "cash_app", "routing_number": "011000015", "account_number": "1234"}, "cash_tag"},
		{"ach with a bad checksum", map[string]any{"platform": "ach", "routing_number": "011000016", "account_number": "1234", "account_type": "checking"}, "routing_number"},
		{"ach without account_type", map[string]any{"platform": "ach", "routing_number": "011000015", "account_number": "1234"}, "account_type"},
		{"ach account number as a number", `{"platform": "ach", "routing_number": "011000015", "account_number": 1234, "account_type": "checking"}`, "account_number"},
		{"is_default a string", `{"platform": "paypal", "email": "a@example.com", "is_default": "yes"}`, "is_default"},
	} {
		calls = append(calls, call{name: c.name, method: "PUT", path: path, body: c.body, status: 400, code: payouts.EInvalidInput, field: c.field})
	}
	calls = append(calls, notFoundCalls("PUT", func(id string) string { return "/v2/users/" + id + "/payout-methods" },
		map[string]any{"platform": "paypal", "email": "ada@example.com"}, w.otherUser.ID)...)
	runCalls(t, env, calls)

	// The refused requests saved nothing: the five methods above are all there is.
	var methods []payouts.PayoutMethod
	call{method: "GET", path: path, status: 200}.do(t, env).Decode(t, &methods)
	if len(methods) != 5 {
		t.Errorf("%d payout methods after 5 saved and many refused", len(methods))
	}
}

func TestListPayoutMethods(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	path := "/v2/users/" + w.user.ID + "/payout-methods"

	t.Run("none is an empty array", func(t *testing.T) {
		resp := call{method: "GET", path: path, status: 200}.do(t, env)
		if strings.TrimSpace(string(resp.Body)) != "[]" {
			t.Errorf("no payout methods: %s, want []", resp.Body)
		}
	})
	call{method: "PUT", path: path, body: map[string]any{"platform": "paypal", "email": "ada@example.com"}, status: 200}.do(t, env)
	t.Run("a bare array", func(t *testing.T) {
		resp := call{method: "GET", path: path + "/", status: 200}.do(t, env)
		var methods []json.RawMessage
		resp.Decode(t, &methods) // a list object would not decode into a slice
		if len(methods) != 1 {
			t.Errorf("%d payout methods, want 1: %s", len(methods), resp.Body)
		}
	})
	runCalls(t, env, notFoundCalls("GET", func(id string) string { return "/v2/users/" + id + "/payout-methods" }, nil, w.otherUser.ID))
	if resp := env.Do(t, "GET", path, nil); resp.Status != http.StatusOK {
		t.Errorf("list after refused requests: %d", resp.Status)
	}
}
