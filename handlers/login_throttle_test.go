package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/web"
)

// behindProxy trusts the address app.Test connects from as a proxy, so each request's client
// address is the rightmost X-Forwarded-For entry.
func behindProxy(c *web.Config) {
	c.TrustedProxies = []string{"0.0.0.0"}
	c.ProxyHeader = fiber.HeaderXForwardedFor
}

func loginForm(email, password string) url.Values {
	return url.Values{"email": {email}, "password": {password}}
}

// wantThrottled checks a 429 whose Retry-After says retryAfter seconds.
func wantThrottled(t *testing.T, res response, retryAfter string) {
	t.Helper()
	wantStatus(t, res, http.StatusTooManyRequests)
	wantBody(t, res, "Too many failed sign-in attempts. Wait "+retryAfter+" seconds")
	if got := res.Header.Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After %q, want %q", got, retryAfter)
	}
}

// Finding 4: ten wrong passwords for the admin from one address used to lock the account for
// everyone. An attacker at A, however many guesses they make, cannot keep the admin at B out.
func TestLoginAttackerCannotLockOutOperator(t *testing.T) {
	t.Parallel()
	h := newHarness(t, behindProxy)
	op, password := h.addOperator("admin@example.com", dashstore.RoleAdmin)
	attacker := h.agent()
	attacker.get("/login")
	for i := 1; i <= 30; i++ {
		attacker.post("/login", loginForm(op.Email, "wrong"), "X-Forwarded-For", "203.0.113.9")
		h.clock.Advance(time.Minute) // the attacker waits out every delay
	}
	admin := h.agent()
	admin.get("/login")
	wantRedirect(t, admin.post("/login", loginForm(op.Email, password), "X-Forwarded-For", "198.51.100.20"), "/")
}

// Failures of one account from one address slow that pair down, by delays that double; the
// right password waits like a wrong one, and works once the delay has passed.
func TestLoginSamePairBacksOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t, behindProxy)
	op, password := h.addOperator("admin@example.com", dashstore.RoleAdmin)
	a := h.agent()
	a.get("/login")
	from := []string{"X-Forwarded-For", "203.0.113.9"}
	for i := 1; i <= web.DefaultPairAttempts; i++ {
		wantStatus(t, a.post("/login", loginForm(op.Email, "wrong"), from...), http.StatusUnauthorized)
	}
	wantThrottled(t, a.post("/login", loginForm(op.Email, password), from...), "5")
	h.clock.Advance(5 * time.Second)
	wantStatus(t, a.post("/login", loginForm(op.Email, "wrong"), from...), http.StatusUnauthorized)
	wantThrottled(t, a.post("/login", loginForm(op.Email, password), from...), "10")
	h.clock.Advance(10 * time.Second)
	wantRedirect(t, a.post("/login", loginForm(op.Email, password), from...), "/")
}

// One address guessing many accounts is slowed down too, and writing other addresses into
// X-Forwarded-For does not help: without a trusted proxy the header is ignored, behind one only
// the address the proxy saw (the rightmost) counts.
func TestLoginAddressBacksOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    []harnessOption
		forward func(i int) string
	}{
		{"no proxy, spoofed header", nil, func(i int) string { return fmt.Sprintf("203.0.113.%d", i) }},
		{"behind a proxy, spoofed leftmost", []harnessOption{behindProxy}, func(i int) string {
			return fmt.Sprintf("10.9.9.%d, 198.51.100.7", i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opts...)
			a := h.agent()
			a.get("/login")
			for i := 1; i <= web.DefaultLoginAttempts; i++ {
				res := a.post("/login", loginForm(fmt.Sprintf("guess%d@example.com", i), "wrong"), "X-Forwarded-For", tc.forward(i))
				wantStatus(t, res, http.StatusUnauthorized)
			}
			wantThrottled(t, a.post("/login", loginForm("another@example.com", "wrong"), "X-Forwarded-For", tc.forward(99)), "5")
		})
	}
}

// Many failures on one account from many addresses write an alert to the audit log, once.
func TestLoginFailuresAlert(t *testing.T) {
	t.Parallel()
	h := newHarness(t, behindProxy)
	op, _ := h.addOperator("admin@example.com", dashstore.RoleAdmin)
	a := h.agent()
	a.get("/login")
	for i := 1; i <= web.DefaultLoginAlertAt+5; i++ {
		res := a.post("/login", loginForm(op.Email, "wrong"), "X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i))
		wantStatus(t, res, http.StatusUnauthorized)
		if got := h.auditActions("operator", op.ID); i < web.DefaultLoginAlertAt && len(got) > 0 {
			t.Fatalf("after %d failures: audit %v, want nothing yet", i, got)
		}
	}
	entries := h.auditActions("operator", op.ID)
	var got []string
	for _, e := range entries {
		got = append(got, e.Action+" by "+e.OperatorID)
	}
	if want := []string{"login.failures_alert by " + web.AlertOperator}; !slices.Equal(got, want) {
		t.Errorf("audit log for the account: %v, want %v", got, want)
	}
}
