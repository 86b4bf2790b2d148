package api_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/api"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// Wrong keys from one address, past the limit, are answered 429 with Retry-After until the
// window has passed, and a spoofed leftmost X-Forwarded-For does not make a new address; the
// right key from that very address works all along.
func TestAuthThrottlePerAddress(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	env := servicetest.Start(t, servicetest.WithClock(clock), servicetest.WithConfig(func(c *payoutd.Config) {
		c.TrustedProxies = []string{"127.0.0.1"}
	}))
	good := env.Credentials()
	other := env.CreateApp(t, "Other")
	wrong := other
	wrong.APIKey = "wrong-" + other.APIKey
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	getApp := func(creds payouts.Credentials, appID string, header map[string]string, status int, code string) *servicetest.Response {
		t.Helper()
		return call{method: http.MethodGet, path: "/v2/apps/" + appID, as: &creds, header: header,
			status: status, code: code}.do(t, env)
	}

	for range api.DefaultAuthFailures {
		getApp(wrong, other.AppID, from("203.0.113.5"), http.StatusUnauthorized, payouts.EUnauthorized)
	}
	res := getApp(wrong, other.AppID, from("10.0.0.1, 203.0.113.5"), http.StatusTooManyRequests, payouts.ETooManyRequests)
	if got, want := res.Header.Get("Retry-After"), strconv.Itoa(int(api.DefaultAuthWindow.Seconds())); got != want {
		t.Errorf("Retry-After %q, want %q", got, want)
	}
	// Another app's wrong key from the same address: the address has had its fill.
	bad := good
	bad.APIKey = "wrong-" + good.APIKey
	getApp(bad, good.AppID, from("203.0.113.5"), http.StatusTooManyRequests, payouts.ETooManyRequests)
	getApp(bad, good.AppID, from("198.51.100.8"), http.StatusUnauthorized, payouts.EUnauthorized)
	// The right keys, from the throttled address, of either app.
	getApp(good, good.AppID, from("203.0.113.5"), http.StatusOK, "")
	getApp(other, other.AppID, from("203.0.113.5"), http.StatusOK, "")

	clock.Advance(api.DefaultAuthWindow - time.Second)
	getApp(bad, good.AppID, from("203.0.113.5"), http.StatusTooManyRequests, payouts.ETooManyRequests)
	getApp(good, good.AppID, from("203.0.113.5"), http.StatusOK, "")
	clock.Advance(time.Second)
	getApp(bad, good.AppID, from("203.0.113.5"), http.StatusUnauthorized, payouts.EUnauthorized)
}

// Wrong keys for one client_id from many addresses, past the limit, are answered 429 from any
// address; the right key for it still authenticates, and other client_ids are unaffected.
func TestAuthThrottlePerClientID(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	env := servicetest.Start(t, servicetest.WithClock(clock), servicetest.WithConfig(func(c *payoutd.Config) {
		c.TrustedProxies = []string{"127.0.0.1"}
	}))
	good := env.Credentials()
	wrong := good
	wrong.APIKey = "wrong-" + good.APIKey
	from := func(i int) map[string]string {
		return map[string]string{"X-Forwarded-For": "203.0.113." + strconv.Itoa(i)}
	}
	getApp := func(creds payouts.Credentials, header map[string]string, status int, code string) {
		t.Helper()
		call{method: http.MethodGet, path: "/v2/apps/" + good.AppID, as: &creds, header: header,
			status: status, code: code}.do(t, env)
	}
	for i := range api.DefaultAuthFailures {
		getApp(wrong, from(i), http.StatusUnauthorized, payouts.EUnauthorized)
	}
	getApp(wrong, from(200), http.StatusTooManyRequests, payouts.ETooManyRequests)
	getApp(good, from(200), http.StatusOK, "")
	unknown := wrong
	unknown.ClientID = "ck_unknown"
	getApp(unknown, from(201), http.StatusUnauthorized, payouts.EUnauthorized)
}
