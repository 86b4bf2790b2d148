package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// publicRoute is a route of the public API, called in a scenario that makes the objects later
// routes name: {name} in a path or body is an id an earlier route saved.
type publicRoute struct {
	method, path string
	org          bool // called with the organization's credentials, else the app's
	body         func(ids map[string]string) any
	status       int
	answer       *model            // nil: no body
	save         map[string]string // id name -> where in the answer (dotted path)
	// tokenTo, when set, is a phone ("+{cc} {phone}", names filled) whose newest sandbox code is
	// saved as {token} before the call.
	tokenTo string
}

// publicRoutes are the public API's payouts routes, in the order of the scenario, each with the
// model its answer must have.
func publicRoutes() []publicRoute {
	ref := func(m model) *model { return &m }
	fixed := func(body any) func(map[string]string) any { return func(map[string]string) any { return body } }
	withIDs := func(template string) func(map[string]string) any {
		return func(ids map[string]string) any { return fill(template, ids) }
	}
	payee := func(n int) string {
		return fmt.Sprintf(`{"amount": 400, "payee": {"country_code": "1", "phone_number": "415555%04d"}}`, n)
	}
	return []publicRoute{
		{method: "POST", path: "/v2/apps", org: true, body: fixed(map[string]any{"name": "Contract app"}), status: 201,
			answer: ref(appModel), save: map[string]string{"app": "id", "client_id": "credentials.client_id", "api_key": "credentials.api_key"}},
		{method: "GET", path: "/v2/apps", org: true, status: 200, answer: ref(arrayOf(appModel))},
		{method: "GET", path: "/v2/apps/{app}", org: true, status: 200, answer: ref(appModel)},
		{method: "POST", path: "/v2/apps/{app}/deposit", body: fixed(map[string]any{"amount": 1_000_00}), status: 200,
			answer: ref(transferModel), save: map[string]string{"deposit": "id"}},
		{method: "PUT", path: "/v2/apps/{app}/ach-account", body: fixed(map[string]any{"account_number": "000123456789",
			"routing_number": "011000015", "account_type": "checking"}), status: 200, answer: ref(achAccountModel)},
		{method: "GET", path: "/v2/apps/{app}/ach-account", status: 200, answer: ref(achAccountModel)},
		{method: "POST", path: "/v2/apps/{app}/withdraw", body: fixed(map[string]any{"amount": 10_00}), status: 201, answer: ref(transferModel)},
		{method: "PUT", path: "/v2/apps/{app}/compliance", body: fixed(businessBody()), status: 200, answer: ref(businessComplianceModel)},
		{method: "GET", path: "/v2/apps/{app}/compliance", status: 200, answer: ref(businessComplianceModel)},

		{method: "POST", path: "/v2/organization-transfers", org: true, body: withIDs(`{"amount": 500, "api_app_id": "{app}"}`),
			status: 200, answer: ref(organizationTransferModel), save: map[string]string{"org_transfer": "id"}},
		{method: "GET", path: "/v2/organization-transfers", org: true, status: 200, answer: ref(listOf(organizationTransferModel))},
		{method: "GET", path: "/v2/organization-transfers/{org_transfer}", org: true, status: 200, answer: ref(organizationTransferModel)},

		{method: "POST", path: "/v2/users", body: func(map[string]string) any { return userBody() }, status: 201,
			answer: ref(userModel), save: map[string]string{"user": "id", "cc": "phone_number.country_code", "phone": "phone_number.phone_number"}},
		{method: "POST", path: "/v2/users", body: func(map[string]string) any { return userBody() }, status: 201,
			answer: ref(userModel), save: map[string]string{"leaver": "id"}},
		{method: "GET", path: "/v2/users", status: 200, answer: ref(listOf(userModel))},
		{method: "GET", path: "/v2/users/{user}", status: 200, answer: ref(userModel)},
		{method: "PATCH", path: "/v2/users/{user}", body: fixed(map[string]any{"metadata": map[string]any{"team": "blue"}}),
			status: 200, answer: ref(userModel)},
		{method: "DELETE", path: "/v2/users/{leaver}", status: 200, answer: ref(userModel)},
		{method: "POST", path: "/v2/users/{user}/send-verification-token", status: 202},
		{method: "POST", path: "/v2/users/{user}/verify", tokenTo: "+{cc} {phone}", body: withIDs(`{"token": "{token}"}`), status: 200},
		{method: "PUT", path: "/v2/users/{user}/compliance", body: fixed(map[string]any{"w8ben": w8ben()}), status: 200},
		{method: "PUT", path: "/v2/users/{user}/payout-methods", body: fixed(map[string]any{"platform": "paypal", "email": "ada@example.com"}),
			status: 200, answer: ref(paymentMethodModel)},
		{method: "GET", path: "/v2/users/{user}/payout-methods", status: 200, answer: ref(arrayOf(paymentMethodModel))},

		{method: "POST", path: "/v2/transfers", body: withIDs(`{"user_id": "{user}", "amount": -5000}`), status: 200,
			answer: ref(transferModel), save: map[string]string{"transfer": "id", "transaction": "transactions.0.id"}},
		{method: "GET", path: "/v2/transfers", status: 200, answer: ref(listOf(transferModel))},
		{method: "GET", path: "/v2/transfers/{transfer}", status: 200, answer: ref(transferModel)},
		{method: "GET", path: "/v2/transfers/{deposit}", status: 200, answer: ref(transferModel)},

		{method: "POST", path: "/v2/transfer-batches", body: withIDs(`{"items": [{"user_id": "{user}", "amount": -100}]}`),
			status: 202, answer: ref(transferBatchModel), save: map[string]string{"batch": "id"}},
		{method: "GET", path: "/v2/transfer-batches", status: 200, answer: ref(listOf(transferBatchModel))},
		{method: "GET", path: "/v2/transfer-batches/{batch}", status: 200, answer: ref(transferBatchModel)},

		{method: "POST", path: "/v2/payouts", body: withIDs(`{"user_id": "{user}", "amount": 500, "platform": "paypal"}`),
			status: 201, answer: ref(transferModel), save: map[string]string{"payout": "id"}},
		{method: "POST", path: "/v2/payouts/send-payout", body: withIDs(`{"user_id": "{user}", "amount": 300}`),
			status: 201, answer: ref(payoutLinkModel)},
		{method: "POST", path: "/v2/payouts/send-payout", body: fixed(payee(1)), status: 201, answer: ref(payoutLinkModel)},

		{method: "POST", path: "/v2/payout-requests", body: fixed(payee(2)), status: 201,
			answer: ref(payoutRequestModel), save: map[string]string{"request": "id"}},
		{method: "POST", path: "/v2/payout-requests", body: withIDs(`{"user_id": "{user}", "amount": 200}`), status: 201,
			answer: ref(payoutRequestModel)},
		{method: "GET", path: "/v2/payout-requests", status: 200, answer: ref(listOf(payoutRequestModel))},
		{method: "GET", path: "/v2/payout-requests/{request}", status: 200, answer: ref(payoutRequestModel)},

		{method: "POST", path: "/v2/payout-links", body: fixed(payee(3)), status: 201,
			answer: ref(payoutLinkModel), save: map[string]string{"link": "id"}},
		{method: "POST", path: "/v2/payout-links", body: fixed(payee(4)), status: 201,
			answer: ref(payoutLinkModel), save: map[string]string{"doomed_link": "id"}},
		{method: "GET", path: "/v2/payout-links", status: 200, answer: ref(listOf(payoutLinkModel))},
		{method: "GET", path: "/v2/payout-links/{link}", status: 200, answer: ref(payoutLinkModel)},
		{method: "DELETE", path: "/v2/payout-links/{doomed_link}", status: 200, answer: ref(payoutLinkModel)},

		{method: "POST", path: "/v2/flows", body: fixed(map[string]any{"steps": []string{"compliance"}}), status: 200,
			answer: ref(flowModel), save: map[string]string{"flow": "id"}},
		{method: "POST", path: "/v2/flows", body: withIDs(`{"steps": ["manage-payouts"], "user_id": "{user}"}`), status: 200,
			answer: ref(flowModel)},
		{method: "GET", path: "/v2/flows", status: 200, answer: ref(listOf(flowModel))},
		{method: "GET", path: "/v2/flows/{flow}", status: 200, answer: ref(flowModel)},

		{method: "GET", path: "/v2/transactions", status: 200, answer: ref(listOf(transactionModel))},
		{method: "GET", path: "/v2/transactions/{transaction}", status: 200, answer: ref(transactionModel)},
	}
}

// TestPublicContract calls every public route, in a scenario that leaves the optional fields
// the models declare both set and unset, and checks each answer against its public model, on
// both engines.
func TestPublicContract(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env := servicetest.Start(t, engine.opts()...)
			org, err := env.Service.CreateOrganization(context.Background(), "Contract organization")
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{}
			for _, r := range publicRoutes() {
				path := fill(r.path, ids)
				if r.tokenTo != "" {
					ids["token"] = env.Inbox.Token(t, fill(r.tokenTo, ids))
				}
				var body any
				if r.body != nil {
					body = r.body(ids)
				}
				creds := org
				if !r.org {
					creds = payouts.Credentials{AppID: ids["app"], ClientID: ids["client_id"], APIKey: ids["api_key"]}
				}
				resp := call{method: r.method, path: path, body: body, as: &creds, status: r.status}.do(t, env)
				if r.answer == nil {
					continue
				}
				dec := json.NewDecoder(bytes.NewReader(resp.Body))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("%s %s: %v in %s", r.method, r.path, err, resp.Body)
				}
				for _, p := range conform("", v, *r.answer) {
					t.Errorf("%s %s: %s", r.method, r.path, p)
				}
				for name, at := range r.save {
					id, ok := lookup(v, at)
					if !ok {
						t.Fatalf("%s %s: no %s in %s", r.method, r.path, at, resp.Body)
					}
					ids[name] = id
				}
			}
		})
	}
}

// fill replaces each {name} in s with the id saved under that name.
func fill(s string, ids map[string]string) string {
	for name, id := range ids {
		s = strings.ReplaceAll(s, "{"+name+"}", id)
	}
	return s
}

// lookup reads a string or number at a dotted path (array indexes as numbers) of a decoded
// answer.
func lookup(v any, path string) (string, bool) {
	for _, step := range strings.Split(path, ".") {
		switch node := v.(type) {
		case map[string]any:
			v = node[step]
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i >= len(node) {
				return "", false
			}
			v = node[i]
		default:
			return "", false
		}
	}
	switch v := v.(type) {
	case string:
		return v, v != ""
	case json.Number:
		return v.String(), true
	}
	return "", false
}

// TestConformCatches: the check finds each kind of departure from a model.
func TestConformCatches(t *testing.T) {
	t.Parallel()
	m := object(req("id", str), opt("user_id", str), opt("n", integer), opt("memo", nullable(str)),
		opt("status", enum("sent", "claimed"))).extensions("ours")
	tests := []struct {
		name, json string
		model      model
		problems   int
	}{
		{"conforms", `{"id": "a", "user_id": "u", "n": 3, "memo": null, "status": "sent", "ours": null}`, m, 0},
		{"required field missing", `{"user_id": "u"}`, m, 1},
		{"optional field null", `{"id": "a", "user_id": null}`, m, 1},
		{"wrong type", `{"id": 5}`, m, 1},
		{"fraction for an integer", `{"id": "a", "n": 1.5}`, m, 1},
		{"outside the enumeration", `{"id": "a", "status": "paid"}`, m, 1},
		{"undeclared field", `{"id": "a", "type": "payout"}`, m, 1},
		{"object for an array", `{"has_more": false, "data": []}`, arrayOf(m), 1},
		{"bad element of an array", `[{"id": "a"}, {"id": null}]`, arrayOf(m), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tt.json))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if got := conform("", v, tt.model); len(got) != tt.problems {
				t.Errorf("problems %q, want %d", got, tt.problems)
			}
		})
	}
}
