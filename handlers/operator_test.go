package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

var shownPassword = regexp.MustCompile(`<code[^>]*>([A-Za-z0-9_-]{20})</code>`)

func TestOperatorsAdmin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, adminOp := h.signedIn(dashstore.RoleAdmin)

	t.Run("form errors are re-rendered with 422", func(t *testing.T) {
		res := admin.post("/operators", url.Values{"name": {""}, "email": {"not-an-email"}, "role": {"boss"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Enter a name.", "Enter an email address like name@example.com.", "Choose a role.",
			`value="not-an-email"`, `aria-invalid="true"`)
	})

	var newOp dashstore.Operator
	var password string
	t.Run("add an operator", func(t *testing.T) {
		res := admin.post("/operators", url.Values{"name": {"Sam Support"}, "email": {"Sam@Example.com"}, "role": {"support"}})
		wantStatus(t, res, http.StatusCreated)
		m := shownPassword.FindStringSubmatch(res.body)
		if m == nil {
			t.Fatalf("no generated password shown:\n%s", res.body)
		}
		password = m[1]
		var err error
		if newOp, err = h.store.OperatorByEmail(t.Context(), "sam@example.com"); err != nil || newOp.Role != dashstore.RoleSupport {
			t.Fatalf("stored operator %+v, %v", newOp, err)
		}
		// The password works, and only once shown: the operators page does not repeat it.
		h.agent().login("sam@example.com", password)
		if strings.Contains(admin.get("/operators").body, password) {
			t.Error("the password is shown again")
		}
		res = admin.post("/operators", url.Values{"name": {"Twin"}, "email": {"sam@example.com"}, "role": {"support"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "An operator with this email already exists")
	})

	t.Run("change role", func(t *testing.T) {
		sam := h.agent()
		sam.login("sam@example.com", password)
		wantStatus(t, sam.get("/audit"), http.StatusForbidden)
		res := admin.post("/operators/"+newOp.ID+"/role", url.Values{"role": {"manager"}})
		wantRedirect(t, res, "/operators/"+newOp.ID)
		wantBody(t, admin.get("/operators/"+newOp.ID), "Role changed to Manager.")
		// It applies at once, without signing in again.
		wantStatus(t, sam.get("/audit"), http.StatusOK)
	})

	t.Run("disable signs them out, enable lets them back", func(t *testing.T) {
		sam := h.agent()
		sam.login("sam@example.com", password)
		wantRedirect(t, admin.post("/operators/"+newOp.ID+"/disable", nil), "/operators/"+newOp.ID)
		wantRedirect(t, sam.get("/audit"), "/login")
		res := h.agent().post("/login", url.Values{"email": {"sam@example.com"}, "password": {password}})
		if res.StatusCode == http.StatusSeeOther {
			t.Fatal("a disabled operator signed in")
		}
		wantRedirect(t, admin.post("/operators/"+newOp.ID+"/enable", nil), "/operators/"+newOp.ID)
		h.agent().login("sam@example.com", password)
	})

	t.Run("reset password", func(t *testing.T) {
		sam := h.agent()
		sam.login("sam@example.com", password)
		res := admin.post("/operators/"+newOp.ID+"/password", nil)
		wantStatus(t, res, http.StatusOK)
		m := shownPassword.FindStringSubmatch(res.body)
		if m == nil || m[1] == password {
			t.Fatalf("no new password shown:\n%s", res.body)
		}
		wantRedirect(t, sam.get("/audit"), "/login")
		h.agent().login("sam@example.com", m[1])
	})

	t.Run("the last admin stays", func(t *testing.T) {
		res := admin.post("/operators/"+adminOp.ID+"/role", url.Values{"role": {"support"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "This is the last admin")
	})

	t.Run("every change is in the audit log", func(t *testing.T) {
		entries, _, err := h.store.AuditLog(t.Context(), dashstore.AuditFilter{ObjectType: "operator", ObjectID: newOp.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, e := range entries {
			if e.OperatorID != adminOp.ID || e.OperatorEmail != adminOp.Email || e.IP == "" {
				t.Errorf("entry %+v: want the admin as who, with an address", e)
			}
			actions = append(actions, e.Action)
		}
		want := "operator.reset_password operator.enable operator.disable operator.role operator.create"
		if strings.Join(actions, " ") != want {
			t.Errorf("actions = %v, want %s", actions, want)
		}
		page := admin.get("/audit?object_type=operator&object_id=" + newOp.ID)
		wantBody(t, page, "Disabled an operator", adminOp.Name, adminOp.Email)
	})
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, _ := h.signedIn(dashstore.RoleAdmin)
	res := a.get("/operators")
	wantStatus(t, res, http.StatusOK)
	csp := res.Header.Get("Content-Security-Policy")
	nonce := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(csp)
	if nonce == nil {
		t.Fatalf("CSP %q has no nonce", csp)
	}
	for _, want := range []string{"frame-ancestors 'none'", "script-src 'nonce-", "'self'", "object-src 'none'", "frame-src 'self' http://127.0.0.1:8081"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q allows inline or eval", csp)
	}
	// Every script is ours and carries this response's nonce; no inline script at all.
	scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(res.body, -1)
	if len(scripts) == 0 {
		t.Fatal("no scripts on the page")
	}
	for _, s := range scripts {
		if !strings.Contains(s, `nonce="`+nonce[1]+`"`) || !strings.Contains(s, `src="/static/js/`) {
			t.Errorf("script %s: want src on our origin and the response's nonce", s)
		}
	}
	for header, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
		"Cache-Control":          "no-store",
		"X-Frame-Options":        "DENY",
	} {
		if got := res.Header.Get(header); got != want {
			t.Errorf("%s = %q, want %q", header, got, want)
		}
	}
	wantBody(t, res, `hx-headers="{&#34;X-CSRF-Token&#34;:&#34;`+a.csrf+`&#34;}"`)

	// A second response has another nonce.
	if again := a.get("/operators").Header.Get("Content-Security-Policy"); again == csp {
		t.Error("the nonce did not change between responses")
	}

	t.Run("assets", func(t *testing.T) {
		css := regexp.MustCompile(`href="(/static/css/app.css\?v=[0-9a-f]+)"`).FindStringSubmatch(res.body)
		if css == nil {
			t.Fatal("no versioned stylesheet link")
		}
		asset := a.get(css[1])
		wantStatus(t, asset, http.StatusOK)
		if cc := asset.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("versioned asset Cache-Control = %q", cc)
		}
		if ct := asset.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
			t.Errorf("Content-Type = %q", ct)
		}
		wantStatus(t, a.get("/static/js/missing.js"), http.StatusNotFound)
	})
}

func TestErrorPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, _ := h.signedIn(dashstore.RoleAdmin)

	page := a.get("/operators/6f1c1f39-0d5e-4f43-9d7e-000000000000")
	wantStatus(t, page, http.StatusNotFound)
	wantBody(t, page, "<!doctype html>", "operator not found", "Back to the dashboard")

	toast := a.get("/operators/6f1c1f39-0d5e-4f43-9d7e-000000000000", "HX-Request", "true")
	wantStatus(t, toast, http.StatusNotFound)
	if toast.Header.Get("HX-Retarget") != "#toasts" || strings.Contains(toast.body, "<html") {
		t.Errorf("htmx error: HX-Retarget %q, body %q; want a toast fragment", toast.Header.Get("HX-Retarget"), toast.body)
	}
	wantBody(t, toast, "operator not found", `role="alert"`)

	wantStatus(t, a.get("/no/such/page"), http.StatusNotFound)
}
