package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/internal/testutil/servicetest"
)

// TestRunWithADotsAccount starts the dashboard as the README's "Use with a Dots account" does,
// with --api-url, against our service and against a strict stand-in for the public Dots API:
// every page of the navigation opens, and on the public API the parts only our service serves
// say so instead of failing.
func TestRunWithADotsAccount(t *testing.T) {
	for _, tc := range []struct {
		name   string
		public bool
	}{{"payoutd", false}, {"public API", true}} {
		t.Run(tc.name, func(t *testing.T) {
			env := servicetest.Start(t)
			apiURL := env.URL
			if tc.public {
				apiURL, _ = dotsdouble.Start(t, env.URL)
			}
			args := []string{"--addr", "127.0.0.1:0", "--dashboard-db", filepath.Join(t.TempDir(), "dashboard.db"),
				"--api-url", apiURL, "--api-client-id", env.ClientID, "--api-key", env.APIKey, "--app-id", env.AppID}
			base, _, _ := start(t, args, map[string]string{"DISBURSE_ADMIN_EMAIL": "boss@example.com",
				"DISBURSE_ADMIN_PASSWORD": "a long admin password"})
			c := signIn(t, base, "boss@example.com", "a long admin password")
			const note = "not available on this API"
			for _, page := range []struct {
				path       string
				publicNote bool // only our service serves a part of it
			}{
				{"/overview", true}, {"/approvals", true}, {"/users?q=ada", true}, {"/transfers?type=payout", true},
				{"/transactions", true}, {"/payout-links?q=ada", true}, {"/flows", false}, {"/sandbox/inbox", false},
				{"/app", true}, {"/webhooks", true}, {"/search?q=ada", true}, {"/operators", false}, {"/audit", false},
				{"/reconciliation", true},
			} {
				body := get(t, c, base+page.path, http.StatusOK)
				says := strings.Contains(body, note) || strings.Contains(body, "Filtered here") ||
					strings.Contains(body, "this API cannot search users")
				if got, want := says, tc.public && page.publicNote; got != want {
					t.Errorf("GET %s: says what the API lacks: %v, want %v", page.path, got, want)
				}
			}
		})
	}
}
