package handlers_test

import (
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/probetest"
	"github.com/disburse/disburse/web"
)

// The dashboard's probes answer without a session; /readyz fails once its database is closed;
// pprof and the metrics are never served on the dashboard's public listener.
func TestDashboardHealth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *web.Config) { c.Ready = c.Store.(*dashstore.Store).Ready })
	a := h.agent()
	probetest.CheckPublic(t, func(path string) int {
		res := a.get(path)
		if res.StatusCode == http.StatusOK && len(res.Cookies()) > 0 {
			t.Errorf("GET %s set cookies %v: a probe must not make a session", path, res.Cookies())
		}
		return res.StatusCode
	})
	h.store.Close()
	wantStatus(t, a.get("/readyz"), http.StatusServiceUnavailable)
	wantStatus(t, a.get("/healthz"), http.StatusOK)
}
