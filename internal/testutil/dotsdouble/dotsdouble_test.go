package dotsdouble_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/internal/testutil/servicetest"
)

// TestDouble passes the public API's routes and parameters on to the service and refuses ours.
func TestDouble(t *testing.T) {
	env := servicetest.Start(t)
	base, double := dotsdouble.Start(t, env.URL)
	for _, tc := range []struct {
		name, method, path string
		status             int
		stripped           string // a parameter the double must drop, or ""
	}{
		{"a public list", http.MethodGet, "/v2/users?limit=5", http.StatusOK, ""},
		{"a public filter", http.MethodGet, "/v2/transfers?user_id=0190a0a0-0000-7000-8000-000000000000", http.StatusOK, ""},
		{"an extension filter beside a public one", http.MethodGet, "/v2/transfers?user_id=0190a0a0-0000-7000-8000-000000000000&type=payout", http.StatusOK, "GET /v2/transfers ?type"},
		{"an extension parameter", http.MethodGet, "/v2/users?search=ada", http.StatusOK, "GET /v2/users ?search"},
		{"an extension route", http.MethodGet, "/v2/apps/" + env.AppID + "/stats", http.StatusNotFound, ""},
		{"an extension below a public id route", http.MethodGet, "/v2/transfers/summary", http.StatusNotFound, ""},
		{"an extension action", http.MethodPost, "/v2/transfers/0190a0a0-0000-7000-8000-000000000000/review", http.StatusNotFound, ""},
		{"events", http.MethodGet, "/v2/events", http.StatusNotFound, ""},
		{"webhooks", http.MethodGet, "/v2/webhook-endpoints", http.StatusNotFound, ""},
		{"a public route by another method", http.MethodPut, "/v2/users", http.StatusNotFound, ""},
		{"outside the API", http.MethodGet, "/l/0190a0a0-0000-7000-8000-000000000000", http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := base + tc.path
			if strings.HasPrefix(tc.path, "/l/") {
				target = strings.TrimSuffix(base, "/api") + tc.path
			}
			req, err := http.NewRequest(tc.method, target, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.SetBasicAuth(env.ClientID, env.APIKey)
			r := env.Send(t, req)
			if r.Status != tc.status {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, r.Status, r.Body, tc.status)
			}
			if tc.stripped != "" && !slices.Contains(double.Stripped(), tc.stripped) {
				t.Errorf("stripped %v, want %q among them", double.Stripped(), tc.stripped)
			}
		})
	}
	for _, s := range double.Stripped() {
		if strings.HasSuffix(s, "?user_id") || strings.HasSuffix(s, "?limit") {
			t.Errorf("the double stripped a public parameter: %s", s)
		}
	}
}

// TestDoubleKeepsPublicFields: an answer keeps only the fields the public models declare, at
// every depth and in every item of a list; an error passes whole.
func TestDoubleKeepsPublicFields(t *testing.T) {
	env := servicetest.Start(t)
	base, double := dotsdouble.Start(t, env.URL)
	send := func(method, path string, body string) map[string]any {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.SetBasicAuth(env.ClientID, env.APIKey)
		r := env.Send(t, req)
		var v map[string]any
		if err := json.Unmarshal(r.Body, &v); err != nil {
			t.Fatalf("%s %s: %s", method, path, r.Body)
		}
		return v
	}
	u := send(http.MethodPost, "/v2/users", `{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","country_code":"1","phone_number":"4155550123"}`)
	list := send(http.MethodGet, "/v2/users?limit=5", "")
	one := send(http.MethodGet, "/v2/users/"+u["id"].(string), "")
	for name, got := range map[string]map[string]any{"created": u, "listed": list["data"].([]any)[0].(map[string]any), "read": one} {
		t.Run(name, func(t *testing.T) {
			for _, gone := range []string{"status", "verified", "created", "username", "default_payout_method"} {
				if _, ok := got[gone]; ok {
					t.Errorf("the user keeps %q: %v", gone, got)
				}
			}
			for _, kept := range []string{"id", "first_name", "email", "phone_number", "wallet", "compliance"} {
				if _, ok := got[kept]; !ok {
					t.Errorf("the user lacks %q: %v", kept, got)
				}
			}
		})
	}
	if _, ok := list["has_more"]; !ok {
		t.Errorf("the list lacks has_more: %v", list)
	}
	app := send(http.MethodGet, "/v2/apps/"+env.AppID, "")
	if m, ok := app["metrics"].(map[string]any); !ok || m["wallet_balance"] == nil || len(m) > 3 {
		t.Errorf("the app's metrics = %v, want wallet_balance, money_out and connected_users only", app["metrics"])
	}
	if e := send(http.MethodGet, "/v2/users/0190a0a0-0000-7000-8000-000000000000", ""); e["error"] != "not-found" || e["message"] == nil {
		t.Errorf("an error lost its fields: %v", e)
	}
	if !slices.Contains(double.Dropped(), "GET /v2/users/{uuid} .status") {
		t.Errorf("dropped %v, want the user's status among them", double.Dropped())
	}
}
