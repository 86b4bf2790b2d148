package handlers_test

import (
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/web"
)

// The dashboard's probes answer without a session; /readyz fails once its database is closed;
// pprof and the metrics are never served on the dashboard's public listener.
func TestDashboardHealth(t *testing.T) {
	h := newHarness(t, func(c *web.Config) { c.Ready = c.Store.(*dashstore.Store).Ready })
	a := h.agent()
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/healthz", http.StatusOK},
		{"/readyz", http.StatusOK},
		{"/debug/pprof/", http.StatusNotFound},
		{"/metrics", http.StatusNotFound},
	} {
		res := a.get(tc.path)
		wantStatus(t, res, tc.want)
		if tc.want == http.StatusOK && len(res.Cookies()) > 0 {
			t.Errorf("GET %s set cookies %v: a probe must not make a session", tc.path, res.Cookies())
		}
	}
	h.store.Close()
	wantStatus(t, a.get("/readyz"), http.StatusServiceUnavailable)
	wantStatus(t, a.get("/healthz"), http.StatusOK)
}
