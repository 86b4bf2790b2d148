package payoutd_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/payouts"
)

// TestEnsureOrganization: the first start makes the organization once, and it adopts the apps
// made before it, so its credentials reach them.
func TestEnsureOrganization(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, payoutd.Config{DB: filepath.Join(t.TempDir(), "d.db")})
	app, _, err := srv.EnsureApp(ctx, "Default", "first key")
	if err != nil {
		t.Fatal(err)
	}
	org, created, err := srv.EnsureOrganization(ctx, "Default organization")
	if err != nil || !created || org.APIKey == "" {
		t.Fatalf("EnsureOrganization = %+v, %v, %v", org, created, err)
	}
	again, created, err := srv.EnsureOrganization(ctx, "Default organization")
	if err != nil || created || again.AppID != org.AppID || again.APIKey != "" {
		t.Errorf("second EnsureOrganization = %+v, %v, %v; want the first without a key", again, created, err)
	}
	list, err := srv.Service().ListOrganizationApps(ctx, org.AppID, payouts.Page{})
	if err != nil || len(list.Data) != 1 || list.Data[0].ID != app.AppID {
		t.Errorf("the organization's apps = %+v, %v; want the first app", list, err)
	}
	later, err := srv.CreateApp(ctx, "Later")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := srv.Service().GetApp(ctx, later.AppID, later.AppID); err != nil || a.OrganizationID != org.AppID {
		t.Errorf("an app made later = %+v, %v; want it in the organization", a, err)
	}
}
