// Package probetest checks what a program's public listener serves of the operational
// endpoints: the health probes, and never pprof or the metrics (those belong on --metrics-addr).
package probetest

import (
	"net/http"
	"testing"
)

// CheckPublic asks get for each path and checks its status: /healthz and /readyz answer 200,
// pprof and /metrics are not there.
func CheckPublic(t *testing.T, get func(path string) int) {
	t.Helper()
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/healthz", http.StatusOK},
		{"/readyz", http.StatusOK},
		{"/debug/pprof/", http.StatusNotFound},
		{"/debug/pprof/cmdline", http.StatusNotFound},
		{"/metrics", http.StatusNotFound},
	} {
		if got := get(tc.path); got != tc.want {
			t.Errorf("public GET %s: %d, want %d", tc.path, got, tc.want)
		}
	}
}
