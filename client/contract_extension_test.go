package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/payouts"
)

// TestContractExtensions asks our service and a strict stand-in for the public API what they
// offer: ours names its extensions, the public API's 404 means none.
func TestContractExtensions(t *testing.T) {
	env, _ := startService(t)
	publicURL, double := dotsdouble.Start(t, env.URL)
	all := []payouts.Extension{payouts.ExtStats, payouts.ExtEvents, payouts.ExtWebhookEndpoints, payouts.ExtIDLookup,
		payouts.ExtSandboxMessages, payouts.ExtSummaries, payouts.ExtUserFilters, payouts.ExtTransferFilters,
		payouts.ExtTransactionFilters, payouts.ExtEventFilters, payouts.ExtPayoutLinkFilters, payouts.ExtFlowFilters,
		payouts.ExtPayoutRequestQueue, payouts.ExtTransferReview, payouts.ExtPayoutRequestReview, payouts.ExtAPIKeys}
	for _, tc := range []struct {
		name, base string
		want       []payouts.Extension
	}{
		{"payoutd", env.URL, all},
		{"public API", publicURL, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := newClient(t, tc.base, env.ClientID, env.APIKey).Extensions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range all {
				if x.Has(e) != slices.Contains(tc.want, e) {
					t.Errorf("Has(%s) = %v, want %v (answer %v)", e, x.Has(e), !x.Has(e), x.Extensions)
				}
			}
		})
	}
	if refused := double.Refused(); !slices.Contains(refused, "GET /api/v2/extensions") {
		t.Errorf("the double refused %v, want GET /api/v2/extensions among them", refused)
	}
}

// TestExtensionsAskedOnce checks that a client asks once and keeps the answer, 404 included, but
// asks again after a failure instead of taking it for "none".
func TestExtensionsAskedOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []int // what the server answers, one per request
		wantAsks int
		wantHas  bool
	}{
		{"offered", []int{200}, 1, true},
		{"none: 404", []int{404}, 1, false},
		{"a failure is not kept", []int{500, 200}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asks atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(asks.Add(1)) - 1
				status := tc.statuses[min(n, len(tc.statuses)-1)]
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				switch status {
				case 200:
					w.Write([]byte(`{"extensions":["stats"]}`))
				case 404:
					w.Write([]byte(`{"error":"not-found","message":"Not found."}`))
				default:
					w.Write([]byte(`{"error":"internal","message":"Oops."}`))
				}
			}))
			defer srv.Close()
			c, err := client.New(srv.URL, client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var x payouts.Extensions
			for range 3 {
				if x, err = c.Extensions(ctx); err == nil {
					break
				}
			}
			for range 2 {
				if x, err = c.Extensions(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if got := int(asks.Load()); got != tc.wantAsks {
				t.Errorf("asked %d times, want %d", got, tc.wantAsks)
			}
			if x.Has(payouts.ExtStats) != tc.wantHas {
				t.Errorf("Has(stats) = %v, want %v", x.Has(payouts.ExtStats), tc.wantHas)
			}
		})
	}
}
