package main

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var metricsAt = regexp.MustCompile(`metrics and pprof at (http://\S+)/metrics`)

// httpGet answers GET u's status and body.
func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

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
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/debug/pprof/": 404, "/metrics": 404} {
		if got, _ := httpGet(t, base+path); got != want {
			t.Errorf("dashboard GET %s: %d, want %d", path, got, want)
		}
	}
	if got, _ := httpGet(t, m[1]+"/debug/pprof/"); got != http.StatusOK {
		t.Errorf("metrics address /debug/pprof/: %d, want 200", got)
	}
	_, body := httpGet(t, m[1]+"/metrics")
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
