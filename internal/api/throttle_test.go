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
// window has passed, even with the right key; the right key from another address works all
// along, and a spoofed leftmost X-Forwarded-For does not make a new address.
func TestAuthThrottlePerAddress(t *testing.T) {
	clock := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	env := servicetest.Start(t, servicetest.WithClock(clock), servicetest.WithConfig(func(c *payoutd.Config) {
		c.TrustedProxies = []string{"127.0.0.1"}
	}))
	good := env.Credentials()
	wrong := good
	wrong.APIKey = "wrong-" + good.APIKey
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	getApp := func(creds payouts.Credentials, header map[string]string, status int, code string) *servicetest.Response {
		t.Helper()
		return call{method: http.MethodGet, path: "/v2/apps/" + good.AppID, as: &creds, header: header,
			status: status, code: code}.do(t, env)
	}

	for range api.DefaultAuthFailures {
		getApp(wrong, from("203.0.113.5"), http.StatusUnauthorized, payouts.EUnauthorized)
	}
	res := getApp(good, from("10.0.0.1, 203.0.113.5"), http.StatusTooManyRequests, payouts.ETooManyRequests)
	if got, want := res.Header.Get("Retry-After"), strconv.Itoa(int(api.DefaultAuthWindow.Seconds())); got != want {
		t.Errorf("Retry-After %q, want %q", got, want)
	}
	getApp(good, from("198.51.100.8"), http.StatusOK, "")

	clock.Advance(api.DefaultAuthWindow - time.Second)
	getApp(good, from("203.0.113.5"), http.StatusTooManyRequests, payouts.ETooManyRequests)
	clock.Advance(time.Second)
	getApp(good, from("203.0.113.5"), http.StatusOK, "")
}
