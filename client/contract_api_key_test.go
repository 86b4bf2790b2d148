package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestContractAPIKeys: over HTTP, a key made by the app works at once for another client,
// replacing or revoking the caller's own key is refused (it would lock the caller out), and a
// revoked key is answered 401 on its next request.
func TestContractAPIKeys(t *testing.T) {
	env, c := startService(t)
	ctx := context.Background()
	list, err := c.ListAPIKeys(ctx, env.AppID)
	if err != nil || len(list.Data) != 1 || !list.Data[0].Current {
		t.Fatalf("ListAPIKeys = %+v, %v; want the one key, current", list, err)
	}
	own := list.Data[0].ID
	k, err := c.CreateAPIKey(ctx, env.AppID, payouts.CreateAPIKeyRequest{Name: "ci", CreatedBy: "ada"})
	if err != nil || k.Key == "" || k.Last4 != k.Key[len(k.Key)-4:] {
		t.Fatalf("CreateAPIKey = %+v, %v", k, err)
	}
	other := newClient(t, env.URL, env.ClientID, k.Key)
	steps := []struct {
		name string
		do   func() error
		// status and code of the answer; 0 for success
		status int
		code   string
	}{
		{"the new key works", func() error { _, err := other.GetApp(ctx, env.AppID); return err }, 0, ""},
		{"revoking the caller's own key", func() error { _, err := c.RevokeAPIKey(ctx, env.AppID, own); return err },
			http.StatusForbidden, payouts.EForbidden},
		{"replacing the caller's own key", func() error {
			_, err := c.CreateAPIKey(ctx, env.AppID, payouts.CreateAPIKeyRequest{Name: "x", Replaces: own})
			return err
		}, http.StatusBadRequest, payouts.EInvalidInput},
		{"a key without a name", func() error { _, err := c.CreateAPIKey(ctx, env.AppID, payouts.CreateAPIKeyRequest{}); return err },
			http.StatusBadRequest, payouts.EInvalidInput},
		{"an unknown key", func() error { _, err := c.RevokeAPIKey(ctx, env.AppID, "nope"); return err },
			http.StatusNotFound, payouts.ENotFound},
		{"revoking the new key", func() error { _, err := c.RevokeAPIKey(ctx, env.AppID, k.ID); return err }, 0, ""},
		{"the revoked key is refused", func() error { _, err := other.GetApp(ctx, env.AppID); return err },
			http.StatusUnauthorized, payouts.EUnauthorized},
		{"the caller's own key still works", func() error { _, err := c.GetApp(ctx, env.AppID); return err }, 0, ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			err := s.do()
			if s.status == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, s.status, s.code)
		})
	}
}
