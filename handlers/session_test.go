package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/web"
)

func sessionCookie(t *testing.T, res response) *http.Cookie {
	t.Helper()
	for _, c := range res.Cookies() {
		if c.Name == web.SessionCookie {
			return c
		}
	}
	t.Fatalf("%s %s set no session cookie", res.Request.Method, res.Request.URL)
	return nil
}

func TestLoginPageFullAndFragment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := h.agent()

	full := a.get("/login")
	wantStatus(t, full, http.StatusOK)
	wantBody(t, full, "<!doctype html>", `<form id="login-form"`, `name="_csrf"`)

	frag := a.get("/login", "HX-Request", "true")
	wantStatus(t, frag, http.StatusOK)
	wantBody(t, frag, `<form id="login-form"`)
	if strings.Contains(frag.body, "<html") {
		t.Errorf("htmx request got a whole page:\n%s", frag.body)
	}
	if v := frag.Header.Get("Vary"); !strings.Contains(v, "HX-Request") {
		t.Errorf("Vary = %q, want HX-Request (a cache must not mix pages and fragments)", v)
	}
	// A boosted request wants the whole page.
	wantBody(t, a.get("/login", "HX-Request", "true", "HX-Boosted", "true"), "<!doctype html>")
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	op, password := h.addOperator("ops@example.com", dashstore.RoleOperations)
	a := h.agent()

	first := a.get("/login?next=/audit")
	anon := sessionCookie(t, first)
	if !anon.HttpOnly || anon.SameSite != http.SameSiteLaxMode || anon.Path != "/" || anon.Secure {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP", anon)
	}
	if anon.MaxAge != int((12 * time.Hour).Seconds()) {
		t.Errorf("cookie Max-Age = %d, want the 12-hour absolute expiry", anon.MaxAge)
	}
	if len(anon.Value) < 40 {
		t.Errorf("cookie value %q: want a long random id and nothing else", anon.Value)
	}

	res := a.post("/login", url.Values{"email": {op.Email}, "password": {password}, "next": {"/operators"}})
	wantRedirect(t, res, "/operators")
	signedIn := sessionCookie(t, res)
	if signedIn.Value == anon.Value {
		t.Fatal("the session id did not change at sign-in")
	}

	// The session before sign-in is revoked: its id no longer opens anything.
	stale := h.agent()
	stale.cookies[web.SessionCookie] = anon.Value
	wantRedirect(t, stale.get("/"), "/login")

	// The new one works, and carries the operator.
	wantRedirect(t, a.get("/"), "/overview")

	// An operator active after each step of the clock stays signed in until the last step ends
	// the session.
	for _, tt := range []struct {
		name  string
		steps []time.Duration
	}{
		{"idle expiry", []time.Duration{29 * time.Minute, 29 * time.Minute, 31 * time.Minute}},
		{"absolute expiry", slices.Repeat([]time.Duration{20 * time.Minute}, 12*3)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := h.agent()
			b.login(op.Email, password)
			for i, d := range tt.steps {
				h.clock.Advance(d)
				want := "/overview"
				if i == len(tt.steps)-1 {
					want = "/login"
				}
				wantRedirect(t, b.get("/"), want)
			}
		})
	}

	t.Run("logout revokes", func(t *testing.T) {
		b := h.agent()
		b.login(op.Email, password)
		cookie := b.cookies[web.SessionCookie]
		res := b.post("/logout", nil)
		wantRedirect(t, res, "/login")
		if c := sessionCookie(t, res); c.MaxAge >= 0 {
			t.Errorf("logout cookie %+v: want it expired", c)
		}
		replay := h.agent()
		replay.cookies[web.SessionCookie] = cookie
		wantRedirect(t, replay.get("/"), "/login")
	})

	t.Run("next stays on this site", func(t *testing.T) {
		for _, next := range []string{"https://evil.example/", "//evil.example/", "/\\evil.example"} {
			b := h.agent()
			b.get("/login")
			res := b.post("/login", url.Values{"email": {op.Email}, "password": {password}, "next": {next}})
			wantRedirect(t, res, "/")
			if loc := res.Header.Get("Location"); loc != "/" {
				t.Errorf("next=%q redirected to %q", next, loc)
			}
		}
	})

	t.Run("htmx request of a signed-out operator", func(t *testing.T) {
		res := h.agent().get("/audit", "HX-Request", "true")
		if res.Header.Get("HX-Redirect") == "" || !strings.HasPrefix(res.Header.Get("HX-Redirect"), "/login") {
			t.Fatalf("status %d, HX-Redirect %q: want a redirect htmx follows", res.StatusCode, res.Header.Get("HX-Redirect"))
		}
	})
}

func TestLoginErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	op, password := h.addOperator("someone@example.com", dashstore.RoleSupport)
	a := h.agent()
	a.get("/login")

	for _, tc := range []struct {
		name, email, password string
	}{
		{"wrong password", op.Email, "not the password"},
		{"unknown email", "nobody@example.com", password},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := a.post("/login", url.Values{"email": {tc.email}, "password": {tc.password}})
			wantStatus(t, res, http.StatusUnauthorized)
			wantBody(t, res, "Wrong email or password.", fmt.Sprintf(`value="%s"`, tc.email))
		})
	}

	t.Run("disabled", func(t *testing.T) {
		if _, err := h.store.UpdateOperator(t.Context(), op.ID, dashstore.OperatorUpdate{Disabled: new(true)}, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		res := a.post("/login", url.Values{"email": {op.Email}, "password": {password}})
		wantStatus(t, res, http.StatusUnauthorized)
		wantBody(t, res, "disabled")
	})
}
