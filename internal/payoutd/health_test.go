package payoutd_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/metrics"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/probetest"
	"github.com/disburse/disburse/payouts"
)

// get answers GET url's status and body.
func get(t *testing.T, h http.Handler, base, path string) (int, string) {
	t.Helper()
	var res *http.Response
	if h != nil {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		res = rec.Result()
	} else {
		var err error
		if res, err = http.Get(base + path); err != nil {
			t.Fatal(err)
		}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// The probes answer on the public listener, pprof and the metrics do not; the metrics handler
// (served on --metrics-addr) shows request latencies, ledger commits and worker lag, and pprof.
// With the database closed, /readyz answers 503 while /healthz still answers 200.
func TestHealthAndMetrics(t *testing.T) {
	m := metrics.New()
	srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "disburse.db"), Metrics: m})
	base := serve(t, srv)

	probetest.CheckPublic(t, func(path string) int { status, _ := get(t, nil, base, path); return status })

	ctx := context.Background()
	creds, err := srv.CreateApp(ctx, "Metered")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Service().Deposit(ctx, creds.AppID, creds.AppID, payouts.DepositRequest{Amount: 10_00}); err != nil {
		t.Fatal(err)
	}
	status, body := get(t, m.Handler(), "", "/metrics")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	for _, want := range []string{
		`disburse_http_request_duration_seconds_count{method="GET",route="/readyz",server="payoutd",status="200"} 1`,
		`disburse_http_request_duration_seconds_count{method="GET",route="/healthz",server="payoutd",status="200"} 1`,
		"disburse_ledger_commits_total 1\n",
		"disburse_worker_oldest_due_payout_seconds 0\n",
		"disburse_worker_delivery_backlog 0\n",
		"disburse_worker_payouts_needing_operator 0\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if status, _ := get(t, m.Handler(), "", "/debug/pprof/"); status != http.StatusOK {
		t.Errorf("metrics listener /debug/pprof/: %d, want 200", status)
	}

	srv.Store().Close()
	if got, _ := get(t, nil, base, "/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database closed: %d, want 503", got)
	}
	if got, _ := get(t, nil, base, "/healthz"); got != http.StatusOK {
		t.Errorf("/healthz with the database closed: %d, want 200", got)
	}
}
