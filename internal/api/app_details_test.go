package api_test

import (
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// businessBody is a valid body for PUT /v2/apps/{id}/compliance, in the public API's shape.
func businessBody() map[string]any {
	address := map[string]any{"line1": "1 Main St", "city": "Springfield", "state": "IL", "zip": "62701", "country": "US"}
	return map[string]any{
		"company_info": map[string]any{"name": "Acme LLC", "ein": "12-3456789", "incorporation_date": "2015-04-01",
			"incorporation_state": "DE", "incorporation_type": "llc", "website": "https://acme.test"},
		"contact_info": map[string]any{"email": "tax@acme.test", "phone_number": "2175550100", "line1": "1 Main St",
			"city": "Springfield", "state": "IL", "zip": "62701", "country": "US"},
		"directors": []any{map[string]any{"first_name": "Ada", "last_name": "King", "title": "CEO", "email": "ada@acme.test",
			"phone": "2175550101", "dob": "1980-12-10", "ownership_percentage": 62.5, "address": address}},
		"flow_of_funds": map[string]any{"reasons": "creator payouts", "usage": "marketplace"},
	}
}

// with returns body with the field at path (top-level key, then nested keys) set to v.
func with(body map[string]any, v any, path ...string) map[string]any {
	m := body
	for _, k := range path[:len(path)-1] {
		m = m[k].(map[string]any)
	}
	m[path[len(path)-1]] = v
	return body
}

func TestAppDetails(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	app := "/v2/apps/" + w.app.AppID
	ach := func(number, routing, typ string) map[string]any {
		return map[string]any{"account_number": number, "routing_number": routing, "account_type": typ}
	}
	put := func(name, path string, body any, status int, field string) call {
		c := call{name: name, method: "PUT", path: path, body: body, status: status, field: field}
		if status == 400 {
			c.code = payouts.EInvalidInput
		}
		return c
	}
	calls := []call{
		{name: "no ACH account yet", method: "GET", path: app + "/ach-account", status: 404, code: payouts.ENotFound},
		{name: "no compliance yet", method: "GET", path: app + "/compliance", status: 404, code: payouts.ENotFound},
		put("ACH account", app+"/ach-account", ach("000123456789", "011000015", "savings"), 200, ""),
		put("bad routing number", app+"/ach-account", ach("000123456789", "011000016", "savings"), 400, "routing_number"),
		put("short account number", app+"/ach-account", ach("12", "011000015", "savings"), 400, "account_number"),
		put("bad account type", app+"/ach-account", ach("000123456789", "011000015", "cd"), 400, "account_type"),
		put("compliance", app+"/compliance", businessBody(), 200, ""),
		put("bad EIN", app+"/compliance", with(businessBody(), "12", "company_info", "ein"), 400, "company_info.ein"),
		put("bad incorporation type", app+"/compliance", with(businessBody(), "trust", "company_info", "incorporation_type"), 400, "company_info.incorporation_type"),
		put("no directors", app+"/compliance", with(businessBody(), []any{}, "directors"), 400, "directors"),
		put("ownership over 100", app+"/compliance", with(businessBody(), []any{map[string]any{"ownership_percentage": 101}}, "directors"), 400, "directors[0].ownership_percentage"),
		put("ownership a string", app+"/compliance", `{"directors": [{"ownership_percentage": "half"}]}`, 400, ""),
		{name: "another app's ACH account", method: "GET", path: app + "/ach-account", as: &w.other, status: 404, code: payouts.ENotFound},
		{name: "another app's compliance", method: "GET", path: app + "/compliance", as: &w.other, status: 404, code: payouts.ENotFound},
	}
	calls = append(calls, badBodies("PUT", app+"/ach-account", `{"account_number": 5}`, "account_number")...)
	calls = append(calls, badBodies("PUT", app+"/compliance", `{"company_info": []}`, "company_info")...)
	runCalls(t, env, calls)

	var acct payouts.ACHAccount
	call{method: "GET", path: app + "/ach-account", status: 200}.do(t, env).Decode(t, &acct)
	if acct != (payouts.ACHAccount{Mask: "6789", Name: "Savings account", RoutingNumber: "011000015", AccountType: payouts.AccountSavings}) {
		t.Errorf("ACH account %+v", acct)
	}
	resp := call{method: "GET", path: app + "/compliance", status: 200}.do(t, env)
	var c payouts.BusinessCompliance
	resp.Decode(t, &c)
	if c.CompanyInfo.EIN != "**-***6789" || c.CompanyInfo.EINLast4 != "6789" || c.CompanyInfo.Name != "Acme LLC" ||
		len(c.Directors) != 1 || c.Directors[0].OwnershipPercentage != "62.5" {
		t.Errorf("compliance %s", resp.Body)
	}
	checkSealed(t, env, "123456789")
	checkSealed(t, env, "000123456789")
}

// checkSealed fails t when secret is stored in clear in the apps table.
func checkSealed(t *testing.T, env *servicetest.Env, secret string) {
	t.Helper()
	var n int
	err := env.Store.DB().QueryRow(`SELECT COUNT(*) FROM apps WHERE instr(bank_sealed, ?) > 0
		OR instr(compliance_sealed, ?) > 0 OR bank_last4 = ?`, secret, secret, secret).Scan(&n)
	if err != nil || n != 0 {
		t.Errorf("secret stored in clear: %d rows, %v", n, err)
	}
}
