package client_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/payouts"
)

// TestContractRails asks which rail serves each platform: our service names one for every
// platform (the sandbox's, with no provider configured), and the public API has no such route.
// Which provider is named once configured is the API's test (internal/api/rail_test.go).
func TestContractRails(t *testing.T) {
	env, c := startService(t)
	ctx := context.Background()
	rails, err := c.Rails(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var platforms []payouts.Platform
	for _, r := range rails.Rails {
		platforms = append(platforms, r.Platform)
		if r.Rail != "sandbox" {
			t.Errorf("rail of %s = %q, want sandbox", r.Platform, r.Rail)
		}
	}
	if !slices.Equal(platforms, payouts.Platforms) {
		t.Errorf("rails name the platforms %v, want %v", platforms, payouts.Platforms)
	}
	t.Run("public API", func(t *testing.T) {
		publicURL, _ := dotsdouble.Start(t, env.URL)
		_, err := newClient(t, publicURL, env.ClientID, env.APIKey).Rails(ctx)
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}
