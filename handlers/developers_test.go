package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestDevelopersPageRoles: only admins open the Developers page or make a key; every other role is
// refused and makes none.
func TestDevelopersPageRoles(t *testing.T) {
	h := newHarness(t)
	for _, role := range dashstore.Roles {
		t.Run(string(role), func(t *testing.T) {
			a, _ := h.signedIn(role)
			want := http.StatusForbidden
			if role == dashstore.RoleAdmin {
				want = http.StatusOK
			}
			wantStatus(t, a.get("/developers"), want)
			if role == dashstore.RoleAdmin {
				return
			}
			wantStatus(t, a.post("/developers/keys", url.Values{"name": {"sneaky"}}), http.StatusForbidden)
			keys, err := h.payouts.ListAPIKeys(t.Context(), h.env.AppID)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys.Data {
				if k.Name == "sneaky" {
					t.Fatalf("a %s made a key", role)
				}
			}
		})
	}
}

var newKeyPattern = regexp.MustCompile(`data-testid="new-api-key"[^>]*>([^<]+)<`)

// TestDevelopersKeyLifecycle: an admin makes a key, shown once, that works against the service at
// once; revokes it after a confirmation, and it is refused; both audited. The dashboard's own key
// is listed without Revoke, and revoking it by hand is refused with the reason while the dashboard
// keeps working.
func TestDevelopersKeyLifecycle(t *testing.T) {
	h := newHarness(t)
	a, _ := h.signedIn(dashstore.RoleAdmin)
	res := a.get("/developers")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "This dashboard's key", h.env.ClientID, "curl -u "+h.env.ClientID+":YOUR_API_KEY")

	wantStatus(t, a.post("/developers/keys", url.Values{"name": {" "}}), http.StatusUnprocessableEntity)
	res = a.post("/developers/keys", url.Values{"name": {"payroll job"}})
	wantStatus(t, res, http.StatusCreated)
	m := newKeyPattern.FindStringSubmatch(res.body)
	if m == nil {
		t.Fatalf("no key shown\n%.3000s", res.body)
	}
	secret := m[1]
	if strings.Contains(a.get("/developers").body, secret) {
		t.Fatal("the secret is shown again")
	}
	keyClient, err := client.New(h.env.URL, client.WithCredentials(h.env.ClientID, secret))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keyClient.GetApp(t.Context(), h.env.AppID); err != nil {
		t.Fatalf("the new key: %v", err)
	}
	keys, err := h.payouts.ListAPIKeys(t.Context(), h.env.AppID)
	if err != nil {
		t.Fatal(err)
	}
	var made, own payouts.APIKey
	for _, k := range keys.Data {
		switch {
		case k.Name == "payroll job":
			made = k
		case k.Current:
			own = k
		}
	}
	if made.ID == "" || own.ID == "" || made.Last4 != secret[len(secret)-4:] {
		t.Fatalf("keys = %+v", keys.Data)
	}
	if strings.Contains(a.get("/developers").body, "/developers/keys/"+own.ID+"/revoke") {
		t.Error("the dashboard's own key offers Revoke")
	}

	res = a.get("/developers/keys/" + made.ID + "/revoke")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "Revoke payroll job", "refused from now on")
	wantRedirect(t, a.post("/developers/keys/"+made.ID+"/revoke", nil), "/developers")
	_, err = keyClient.GetApp(t.Context(), h.env.AppID)
	if payouts.ErrorCode(err) != payouts.EUnauthorized {
		t.Fatalf("the revoked key: %v; want unauthorized", err)
	}

	res = a.post("/developers/keys/"+own.ID+"/revoke", nil)
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "the request is made with")
	wantStatus(t, a.get("/developers"), http.StatusOK)

	for _, action := range []string{"api_key.create", "api_key.revoke"} {
		if got := h.auditActions("api_key", made.ID); !containsAction(got, action) {
			t.Errorf("no %s in the audit log: %+v", action, got)
		}
	}
}

func containsAction(entries []dashstore.AuditEntry, action string) bool {
	for _, e := range entries {
		if e.Action == action {
			return true
		}
	}
	return false
}

// TestDevelopersOnDotsAccount: on the public Dots API, which has no api-keys extension, the page
// says keys are managed in Dots' console and offers no form.
func TestDevelopersOnDotsAccount(t *testing.T) {
	h := newHarnessWith(t, harnessSetup{public: true})
	a, _ := h.signedIn(dashstore.RoleAdmin)
	res := a.get("/developers")
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "managed in Dots' console")
	if strings.Contains(res.body, `action="/developers/keys"`) {
		t.Error("the page offers to make a key the service cannot make")
	}
}
