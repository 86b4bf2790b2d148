package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/probetest"
)

var metricsAt = regexp.MustCompile(`metrics and pprof at (http://\S+)/metrics`)

// With --metrics-addr, the metrics of the dashboard and of its embedded service are served on
// that address with pprof; the public listener has the probes and neither of those.
func TestRunMetricsAddr(t *testing.T) {
	dir := t.TempDir()
	base, out, _ := start(t, []string{"--addr", "127.0.0.1:0", "--service-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
		"--dashboard-db", filepath.Join(dir, "dashboard.db"), "--db", filepath.Join(dir, "disburse.db")}, nil)
	m := metricsAt.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no metrics address printed:\n%s", out)
	}
	probetest.CheckPublic(t, func(path string) int {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	})
	get(t, http.DefaultClient, m[1]+"/debug/pprof/", http.StatusOK)
	body := get(t, http.DefaultClient, m[1]+"/metrics", http.StatusOK)
	for _, want := range []string{
		`disburse_http_request_duration_seconds_count{method="GET",route="/readyz",server="dashboard",status="200"} 1`,
		`route="/api/v2/apps/:app_id",server="payoutd",status="200"}`, // the dashboard's start-up check
		"disburse_dashboard_login_failures_total 0",
		"disburse_ledger_commits_total 0",
		"disburse_worker_delivery_backlog 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
