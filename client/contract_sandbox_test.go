package client_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestContractSandboxMessages(t *testing.T) {
	ctx := context.Background()
	env, c := startService(t)
	u, err := c.CreateUser(ctx, newUserRequest("Inbox"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendVerificationToken(ctx, u.ID, payouts.SendVerificationTokenRequest{}); err != nil {
		t.Fatal(err)
	}
	other := env.CreateApp(t, "Other app")
	theirs := newClient(t, env.URL, other.ClientID, other.APIKey)

	tests := []struct {
		name   string
		client func() (*payouts.List[payouts.SandboxMessage], error)
		want   int
	}{
		{"the app's own", func() (*payouts.List[payouts.SandboxMessage], error) {
			return c.SandboxMessages(ctx, payouts.Page{Limit: 5})
		}, 1},
		{"another app sees none of them", func() (*payouts.List[payouts.SandboxMessage], error) {
			return theirs.SandboxMessages(ctx, payouts.Page{})
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := tt.client()
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Data) != tt.want || list.HasMore {
				t.Fatalf("messages: %+v", list)
			}
			if tt.want > 0 {
				m := list.Data[0]
				if m.To != u.PhoneNumber.String() || m.Channel != "sms" || !strings.Contains(m.Body, "verification code") ||
					m.ID == "" || m.Created.IsZero() {
					t.Errorf("message: %+v", m)
				}
			}
		})
	}

	t.Run("errors", func(t *testing.T) {
		_, err := c.SandboxMessages(ctx, payouts.Page{StartingAfter: "bogus"})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "starting_after")
		live := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = true }))
		_, err = newClient(t, live.URL, live.ClientID, live.APIKey).SandboxMessages(ctx, payouts.Page{})
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}
