package client_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestContractIDLookup finds each kind of object by its short id and by the beginning of its id,
// on both engines, and never another app's objects or a deleted user.
func TestContractIDLookup(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		env := servicetest.Start(t, servicetest.WithDSN(dsn))
		c := newClient(t, env.URL, env.ClientID, env.APIKey)
		ada := createUser(t, c, "Ada")
		deposit(t, env, c, 10_000)
		transfer := fundUser(t, c, ada.ID, 2_500)
		link, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 1_000, UserID: ada.ID})
		if err != nil {
			t.Fatal(err)
		}
		flow, err := c.CreateFlow(ctx, payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepCompliance}}})
		if err != nil {
			t.Fatal(err)
		}
		gone := createUser(t, c, "Gone")
		if _, err := c.DeleteUser(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		orgCreds, err := env.Service.CreateOrganization(ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		other, err := newClient(t, env.URL, orgCreds.ClientID, orgCreds.APIKey).CreateApp(ctx, payouts.CreateAppRequest{Name: "Other"})
		if err != nil {
			t.Fatal(err)
		}
		stranger := createUser(t, newClient(t, env.URL, other.Credentials.ClientID, other.Credentials.APIKey), "Stranger")

		users := func(l *payouts.IDLookup) []string { return l.Users }
		transfers := func(l *payouts.IDLookup) []string { return l.Transfers }
		links := func(l *payouts.IDLookup) []string { return l.PayoutLinks }
		flows := func(l *payouts.IDLookup) []string { return l.Flows }
		for _, tc := range []struct {
			name, text string
			kind       func(*payouts.IDLookup) []string
			want       string
		}{
			{"user by short id", payouts.ShortID(ada.ID), users, ada.ID},
			{"user by full id", ada.ID, users, ada.ID},
			{"user by the beginning of the id", ada.ID[:8], users, ada.ID},
			{"upper case", strings.ToUpper(ada.ID[:13]), users, ada.ID},
			{"upper case short id", strings.ToUpper(payouts.ShortID(ada.ID)), users, ada.ID},
			{"transfer", payouts.ShortID(transfer.ID), transfers, transfer.ID},
			{"transfer by the beginning of the id", transfer.ID[:19], transfers, transfer.ID},
			{"payout link", payouts.ShortID(link.ID), links, link.ID},
			{"flow", payouts.ShortID(flow.ID), flows, flow.ID},
			{"not a deleted user", payouts.ShortID(gone.ID), users, ""},
			{"not another app's user", payouts.ShortID(stranger.ID), users, ""},
			{"not another app's user by the beginning", stranger.ID[:13], users, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				found, err := c.LookUpIDs(ctx, tc.text)
				if err != nil {
					t.Fatal(err)
				}
				ids := tc.kind(found)
				if tc.want == "" && len(ids) != 0 || tc.want != "" && !slices.Contains(ids, tc.want) {
					t.Errorf("LookUpIDs(%q) = %+v, want %q", tc.text, found, tc.want)
				}
				if found.Users == nil || found.PayoutLinks == nil || found.Transfers == nil || found.Flows == nil {
					t.Errorf("LookUpIDs(%q) = %+v, want every kind a list, empty or not", tc.text, found)
				}
			})
		}

		for _, bad := range []string{"", "a1b2c3d", "a1b2c3d4e", "%%%%%%%%", "a1b2c3d4-1234-4abc-8def-0123456789abcd"} {
			_, err := c.LookUpIDs(ctx, bad)
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "id")
		}
	})
}
