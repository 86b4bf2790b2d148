package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/payouts"
)

// TestContractReconcile asks for a reconciliation: a bad platform or day names its field, a rail
// that keeps no provider records (the sandbox's) is refused as input, and the public API has no
// such route. The matching itself is the service's (internal/service/reconcile_test.go).
func TestContractReconcile(t *testing.T) {
	env, c := startService(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		req    payouts.ReconcileRequest
		fields []string
	}{
		{"no platform, bad day", payouts.ReconcileRequest{Day: "24/11/2026"}, []string{"platform", "day"}},
		{"the sandbox cannot list", payouts.ReconcileRequest{Platform: payouts.PlatformACH, Day: "2026-11-24"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Reconcile(ctx, tc.req)
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, tc.fields...)
		})
	}
	t.Run("public API", func(t *testing.T) {
		publicURL, _ := dotsdouble.Start(t, env.URL)
		_, err := newClient(t, publicURL, env.ClientID, env.APIKey).Reconcile(ctx,
			payouts.ReconcileRequest{Platform: payouts.PlatformACH, Day: "2026-11-24"})
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}
