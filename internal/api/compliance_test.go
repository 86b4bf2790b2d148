package api_test

import (
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

func address() map[string]any {
	return map[string]any{"line_1": "1 Main St", "city": "Springfield", "state": "IL", "country": "US", "postcode": "62701"}
}

func w9() map[string]any {
	return map[string]any{"entity_type": "individual", "first_name": "Ada", "last_name": "Lovelace",
		"date_of_birth": "1990-12-10", "tin": "123-45-6789", "address": address()}
}

func w8ben() map[string]any {
	return map[string]any{"name": "Ada Lovelace", "citizenship_country": "GB", "date_of_birth": "1990-12-10",
		"tin": "912701234", "foreign_tax_id": "AB123456C", "address": address(),
		"signature": map[string]any{"consent": true, "name": "Ada Lovelace", "email": "ada@example.com"}}
}

func TestSubmitCompliance(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	path := "/v2/users/" + w.user.ID + "/compliance"

	t.Run("w9", func(t *testing.T) {
		resp := call{method: "PUT", path: path, body: map[string]any{"w9": w9()}, status: 200}.do(t, env)
		if len(resp.Body) != 0 {
			t.Errorf("compliance answered a body: %q", resp.Body)
		}
		c := getUser(t, env, w.user.ID).Compliance
		if !c.Collected1099 || !c.TaxIDCollected || !c.AddressCollected || !c.DateOfBirthCollected {
			t.Errorf("compliance flags after a W-9: %+v", c)
		}
	})
	t.Run("w8ben", func(t *testing.T) {
		other := createUser(t, env, w.app)
		call{method: "PUT", path: "/v2/users/" + other.ID + "/compliance", body: map[string]any{"w8ben": w8ben()}, status: 200}.do(t, env)
		if c := getUser(t, env, other.ID).Compliance; !c.W8BENCollected {
			t.Errorf("compliance flags after a W-8BEN: %+v", c)
		}
	})
	t.Run("TIN is never shown", func(t *testing.T) {
		resp := env.Do(t, "GET", "/v2/users/"+w.user.ID, nil)
		if strings.Contains(string(resp.Body), "6789") || strings.Contains(string(resp.Body), "123-45") {
			t.Errorf("the user shows the TIN: %s", resp.Body)
		}
	})

	bad := func(name string, body any, field string) call {
		return call{name: name, method: "PUT", path: path, body: body, status: 400, code: payouts.EInvalidInput, field: field}
	}
	with := func(form map[string]any, k string, v any) map[string]any {
		form[k] = v
		return form
	}
	calls := badBodies("PUT", path, `{"w9": "yes"}`, "w9")
	calls = append(calls,
		bad("no form", map[string]any{}, "w9"),
		bad("both forms", map[string]any{"w9": w9(), "w8ben": w8ben()}, "w8ben"),
		bad("w9 without tin", map[string]any{"w9": with(w9(), "tin", "")}, "w9.tin"),
		bad("w9 with a short tin", map[string]any{"w9": with(w9(), "tin", "12345")}, "w9.tin"),
		bad("w9 with an unknown entity type", map[string]any{"w9": with(w9(), "entity_type", "trust")}, "w9.entity_type"),
		bad("w9 business without a name", map[string]any{"w9": with(w9(), "entity_type", "business")}, "w9.business_name"),
		bad("w9 with a bad date of birth", map[string]any{"w9": with(w9(), "date_of_birth", "10/12/1990")}, "w9.date_of_birth"),
		bad("w9 without address", map[string]any{"w9": with(w9(), "address", nil)}, "w9.address.line_1"),
		bad("w9 tin as a number", `{"w9": {"tin": 123456789}}`, "w9.tin"),
		bad("w9 address city as a number", `{"w9": {"address": {"city": 5}}}`, "w9.address.city"),
		bad("w8ben without consent", map[string]any{"w8ben": with(w8ben(), "signature", map[string]any{"name": "Ada", "email": "ada@example.com"})}, "w8ben.signature.consent"),
		bad("w8ben consent as a string", `{"w8ben": {"signature": {"consent": "true"}}}`, "w8ben.signature.consent"),
	)
	calls = append(calls, notFoundCalls("PUT", func(id string) string { return "/v2/users/" + id + "/compliance" },
		map[string]any{"w9": w9()}, w.otherUser.ID)...)
	runCalls(t, env, calls)

	// Sending the other app's user a form through this app changed nothing of theirs.
	var u payouts.User
	env.DoAs(t, w.other, "GET", "/v2/users/"+w.otherUser.ID, nil).Decode(t, &u)
	if u.Compliance != (payouts.Compliance{}) {
		t.Errorf("another app's user got compliance flags: %+v", u.Compliance)
	}
}
