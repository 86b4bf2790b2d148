package api_test

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// apiRoute is a route of the API with its parameters filled in.
type apiRoute struct{ method, path string }

var routeParam = regexp.MustCompile(`:[a-z_]+`)

// apiRoutes lists every /v2 route the server has (read from the Fiber app, so a new route is
// covered without editing the tests), with parameters replaced by ids of the world's first app.
func apiRoutes(t *testing.T, w *world) []apiRoute {
	t.Helper()
	ids := map[string]string{
		":app_id": w.app.AppID, ":user_id": w.user.ID, ":transfer_id": w.transfer.ID, ":transaction_id": "1",
		":year": "2026",
	}
	seen := map[apiRoute]bool{}
	var out []apiRoute
	for _, r := range w.env.Server.App().GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/api/v2/") || r.Method == http.MethodHead {
			continue
		}
		path := routeParam.ReplaceAllStringFunc(strings.TrimPrefix(r.Path, "/api"), func(p string) string {
			if id, ok := ids[p]; ok {
				return id
			}
			return unknownID
		})
		if rt := (apiRoute{r.Method, path}); !seen[rt] {
			seen[rt] = true
			out = append(out, rt)
		}
	}
	if len(out) < 17 {
		t.Fatalf("found only %d API routes: %v", len(out), out)
	}
	return out
}

func TestEveryRouteNeedsCredentials(t *testing.T) {
	t.Parallel()
	// Every route with every bad credential, from one address: far past the throttle's limit,
	// which TestAuthThrottlePerAddress covers.
	w := newWorld(t, servicetest.WithConfig(func(c *payoutd.Config) { c.AuthFailures = 1 << 20 }))
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	creds := []struct {
		name, header string
	}{
		{"no credentials", ""},
		{"wrong api key", basic(w.app.ClientID + ":sk_wrong")},
		{"unknown client id", basic("ck_unknown:" + w.app.APIKey)},
		{"another app's client id with this key", basic(w.other.ClientID + ":" + w.app.APIKey)},
		{"empty password", basic(w.app.ClientID + ":")},
		{"empty username", basic(":" + w.app.APIKey)},
		{"no colon", basic(w.app.ClientID)},
		{"bearer token", "Bearer " + w.app.APIKey},
		{"malformed base64", "Basic !!!"},
		{"scheme only", "Basic"},
		{"huge username", basic(strings.Repeat("c", 10_000) + ":" + w.app.APIKey)},
	}
	for _, r := range apiRoutes(t, w) {
		if strings.HasPrefix(r.path, "/v2/rail-webhooks/") || strings.HasPrefix(r.path, "/v2/message-status/") {
			continue // a provider's report carries the provider's signature, not our key: TestRailWebhook, TestPayoutLinkBySMS
		}
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			for _, c := range creds {
				header := map[string]string{"Authorization": c.header}
				resp := call{method: r.method, path: r.path, body: `{}`, header: header,
					status: http.StatusUnauthorized, code: payouts.EUnauthorized}.do(t, w.env)
				if strings.Contains(string(resp.Body), w.app.APIKey) {
					t.Errorf("%s: the answer echoes the key", c.name)
				}
			}
		})
	}
	// Nothing was created by the refused requests.
	var users payouts.List[payouts.User]
	w.env.Do(t, "GET", "/v2/users", nil).Decode(t, &users)
	if len(users.Data) != 1 {
		t.Errorf("%d users after refused requests, want 1", len(users.Data))
	}
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ok := base64.StdEncoding.EncodeToString([]byte(w.app.ClientID + ":" + w.app.APIKey))
	runCalls(t, w.env, []call{
		{name: "lower-case scheme", method: "GET", path: "/v2/apps/" + w.app.AppID,
			header: map[string]string{"Authorization": "basic " + ok}, status: 200},
		{name: "unknown route without credentials does not reveal it", method: "GET", path: "/v2/secret-things",
			header: map[string]string{"Authorization": ""}, status: 401, code: payouts.EUnauthorized},
		{name: "the other app reaches its own objects", method: "GET", path: "/v2/users/" + w.otherUser.ID, as: &w.other, status: 200},
		{name: "the other app cannot reach ours", method: "GET", path: "/v2/users/" + w.user.ID, as: &w.other, status: 404, code: payouts.ENotFound},
	})
}

// TestAnotherAppsIDs sends every route that names an object the other app's ids: each is a 404.
func TestAnotherAppsIDs(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	theirs := map[string]string{w.app.AppID: w.other.AppID, w.user.ID: w.otherUser.ID, w.transfer.ID: w.otherTransfer.ID}
	for _, r := range apiRoutes(t, w) {
		path := r.path
		for mine, other := range theirs {
			path = strings.ReplaceAll(path, mine, other)
		}
		if path == r.path || strings.HasPrefix(path, "/v2/organization-transfers") {
			continue // names no object of an app (organizations have their own tests)
		}
		if strings.HasSuffix(path, "/tax-forms") {
			path += "?year=2026" // its one required parameter, so that only the user can be wrong
		}
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			call{method: r.method, path: path, body: validBody(r), status: http.StatusNotFound, code: payouts.ENotFound}.do(t, w.env)
		})
	}
	// The other app's objects are unchanged.
	var u payouts.User
	w.env.DoAs(t, w.other, "GET", "/v2/users/"+w.otherUser.ID, nil).Decode(t, &u)
	if u.Wallet.Amount != 50_00 || u.Verified || u.Compliance != (payouts.Compliance{}) {
		t.Errorf("the other app's user changed: %+v", u)
	}
	var methods []payouts.PayoutMethod
	w.env.DoAs(t, w.other, "GET", "/v2/users/"+w.otherUser.ID+"/payout-methods", nil).Decode(t, &methods)
	if len(methods) != 0 {
		t.Errorf("the other app's user got payout methods: %+v", methods)
	}
}

// validBody is a body the route would accept for an object of the right app.
func validBody(r apiRoute) any {
	switch {
	case r.method == "GET" || r.method == "DELETE":
		return nil
	case strings.HasSuffix(r.path, "/deposit"):
		return map[string]any{"amount": 1_00}
	case strings.HasSuffix(r.path, "/verify"):
		return map[string]any{"token": "123456"}
	case strings.HasSuffix(r.path, "/payout-methods"):
		return map[string]any{"platform": "paypal", "email": "x@example.com"}
	case strings.HasSuffix(r.path, "/compliance"):
		return map[string]any{"w9": w9()}
	case r.method == "PATCH":
		return map[string]any{"metadata": "x"}
	}
	return map[string]any{}
}
