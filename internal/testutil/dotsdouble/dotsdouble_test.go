package dotsdouble_test

import (
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
