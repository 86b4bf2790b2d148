package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// org is an organization with two apps made through the API.
type org struct {
	creds      payouts.Credentials
	app1, app2 payouts.App
}

func newOrg(t *testing.T, env *servicetest.Env, name string) org {
	t.Helper()
	creds, err := env.Service.CreateOrganization(context.Background(), name)
	if err != nil {
		t.Fatalf("create organization: %v", err)
	}
	o := org{creds: creds}
	for _, a := range []*payouts.App{&o.app1, &o.app2} {
		call{method: "POST", path: "/v2/apps", as: &creds, body: map[string]any{"name": name + " app", "metadata": map[string]any{"k": 1}},
			status: http.StatusCreated}.do(t, env).Decode(t, a)
		if a.Credentials == nil || a.Credentials.APIKey == "" || a.OrganizationID != creds.AppID || a.Status != payouts.AppApproved {
			t.Fatalf("new app %+v", a)
		}
	}
	return o
}

func TestOrganizations(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env := servicetest.Start(t, engine.opts()...)
			a, b := newOrg(t, env, "Acme"), newOrg(t, env, "Bolt")
			app1 := *a.app1.Credentials
			actAs := func(id string) map[string]string { return map[string]string{"Api-App-Id": id} }

			t.Run("apps list pages", func(t *testing.T) {
				// The public model's answer is the page as a bare array; envelope=true is ours.
				var bare []payouts.App
				call{method: "GET", path: "/v2/apps?limit=1", as: &a.creds, status: 200}.do(t, env).Decode(t, &bare)
				if len(bare) != 1 || bare[0].ID != a.app2.ID {
					t.Fatalf("first page %+v", bare)
				}
				var l payouts.List[payouts.App]
				call{method: "GET", path: "/v2/apps?limit=1&envelope=true", as: &a.creds, status: 200}.do(t, env).Decode(t, &l)
				if len(l.Data) != 1 || !l.HasMore || l.Data[0].ID != a.app2.ID {
					t.Fatalf("first page %+v", l)
				}
				call{method: "GET", path: "/v2/apps?limit=1&envelope=true&starting_after=" + a.app2.ID, as: &a.creds, status: 200}.do(t, env).Decode(t, &l)
				if len(l.Data) != 1 || l.HasMore || l.Data[0].ID != a.app1.ID || l.Data[0].Credentials != nil {
					t.Fatalf("second page %+v", l)
				}
				call{method: "GET", path: "/v2/apps?envelope=yes", as: &a.creds, status: 400, code: payouts.EInvalidInput, field: "envelope"}.do(t, env)
			})
			call{method: "POST", path: "/v2/apps/" + a.app1.ID + "/deposit", as: &a.creds, body: map[string]any{"amount": 1000_00}, status: 200}.do(t, env)
			user := createUser(t, env, app1)
			transfer(t, env, app1, user.ID, -10_00)

			t.Run("metrics", func(t *testing.T) {
				var got payouts.App
				call{method: "GET", path: "/v2/apps/" + a.app1.ID, as: &app1, status: 200}.do(t, env).Decode(t, &got)
				want := payouts.AppMetrics{WalletBalance: "990.00", MoneyOut: "0.00", ConnectedUsers: 1}
				if got.Metrics != want || got.Wallet.Amount != 990_00 || string(got.Metadata) != `{"k":1}` {
					t.Errorf("app %+v, want metrics %+v", got, want)
				}
			})

			transfers := "/v2/organization-transfers"
			var toOrg, toApp2 payouts.OrganizationTransfer
			call{method: "POST", path: transfers, as: &a.creds, status: 200,
				body: map[string]any{"amount": 300_00, "api_app_id": a.app1.ID, "metadata": "m"}}.do(t, env).Decode(t, &toOrg)
			call{method: "POST", path: transfers, as: &a.creds, status: 200,
				body: map[string]any{"amount": -200_00, "api_app_id": a.app2.ID}}.do(t, env).Decode(t, &toApp2)
			if toOrg.Amount != 300_00 || toOrg.APIAppID != a.app1.ID || toOrg.Status != payouts.TransferCompleted {
				t.Errorf("organization transfer %+v", toOrg)
			}
			bad := func(name string, body any, status int, code, field string) call {
				return call{name: name, method: "POST", path: transfers, as: &a.creds, body: body, status: status, code: code, field: field}
			}
			calls := []call{
				bad("more than the organization has", map[string]any{"amount": -100_01, "api_app_id": a.app2.ID}, 422, payouts.EInsufficientFunds, ""),
				bad("more than the app has", map[string]any{"amount": 200_01, "api_app_id": a.app2.ID}, 422, payouts.EInsufficientFunds, ""),
				bad("another organization's app", map[string]any{"amount": -1, "api_app_id": b.app1.ID}, 404, payouts.ENotFound, ""),
				bad("the organization itself", map[string]any{"amount": -1, "api_app_id": a.creds.AppID}, 404, payouts.ENotFound, ""),
				bad("zero", map[string]any{"amount": 0, "api_app_id": a.app2.ID}, 400, payouts.EInvalidInput, "amount"),
				bad("no app", map[string]any{"amount": 5}, 400, payouts.EInvalidInput, "api_app_id"),
				bad("api_app_id a number", `{"amount": 5, "api_app_id": 5}`, 400, payouts.EInvalidInput, "api_app_id"),
				{name: "app credentials", method: "POST", path: transfers, as: &app1, body: map[string]any{"amount": -1, "api_app_id": a.app1.ID}, status: 403, code: payouts.EForbidden},
				{name: "app credentials list apps", method: "GET", path: "/v2/apps", as: &app1, status: 403, code: payouts.EForbidden},
				{name: "organization without Api-App-Id", method: "GET", path: "/v2/users", as: &a.creds, status: 403, code: payouts.EForbidden},
				{name: "organization acting as its app", method: "GET", path: "/v2/users/" + user.ID, as: &a.creds, header: actAs(a.app1.ID), status: 200},
				{name: "organization acting as another's app", method: "GET", path: "/v2/users", as: &a.creds, header: actAs(b.app1.ID), status: 404, code: payouts.ENotFound},
				{name: "app acting as its sibling", method: "GET", path: "/v2/users", as: &app1, header: actAs(a.app2.ID), status: 403, code: payouts.EForbidden},
				{name: "app reading its sibling", method: "GET", path: "/v2/apps/" + a.app2.ID, as: &app1, status: 404, code: payouts.ENotFound},
				{name: "organization reading another's app", method: "GET", path: "/v2/apps/" + b.app1.ID, as: &a.creds, status: 404, code: payouts.ENotFound},
				{name: "organization depositing to another's app", method: "POST", path: "/v2/apps/" + b.app1.ID + "/deposit", as: &a.creds, body: map[string]any{"amount": 1}, status: 404, code: payouts.ENotFound},
				{name: "another organization's transfer", method: "GET", path: transfers + "/" + toOrg.ID, as: &b.creds, status: 404, code: payouts.ENotFound},
				{name: "app name missing", method: "POST", path: "/v2/apps", as: &a.creds, body: map[string]any{}, status: 400, code: payouts.EInvalidInput, field: "name"},
			}
			calls = append(calls, badBodies("POST", transfers, `{"amount": "5"}`, "amount")...)
			calls = append(calls, pageCalls("/v2/apps")...)
			calls = append(calls, pageCalls(transfers)...)
			for i := range calls {
				if calls[i].as == nil {
					calls[i].as = &a.creds
				}
			}
			runCalls(t, env, calls)

			var l payouts.List[payouts.OrganizationTransfer]
			call{method: "GET", path: transfers + "?limit=1", as: &a.creds, status: 200}.do(t, env).Decode(t, &l)
			if len(l.Data) != 1 || !l.HasMore || l.Data[0].ID != toApp2.ID {
				t.Errorf("organization transfers %+v", l)
			}
			call{method: "GET", path: transfers, as: &b.creds, status: 200}.do(t, env).Decode(t, &l)
			if len(l.Data) != 0 {
				t.Errorf("another organization sees %+v", l)
			}
			if w := getApp(t, env, app1).Wallet.Amount; w != 690_00 {
				t.Errorf("app wallet %v, want $690.00", w)
			}
			if w := getApp(t, env, *a.app2.Credentials).Wallet.Amount; w != 200_00 {
				t.Errorf("second app wallet %v, want $200.00", w)
			}
		})
	}
}

func TestRepeatedSlashes(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	call{method: "GET", path: "//v2//apps/" + env.AppID, status: 200}.do(t, env)
}
