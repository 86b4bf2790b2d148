package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/web"
)

// TestEveryAuditedActionIsNamed: every action a handler writes to the audit log has its words
// on the audit page and is a choice of its filter, so none shows raw (bulk.confirm_repeats) or
// cannot be filtered by.
func TestEveryAuditedActionIsNamed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	audited := regexp.MustCompile(`h\.audit\(c, "([a-z_]+\.[a-z_]+)"|Action: +"([a-z_]+\.[a-z_]+)"`)
	named := pages.AuditActions()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range audited.FindAllStringSubmatch(string(src), -1) {
			action := m[1] + m[2]
			if !slices.Contains(named, action) {
				t.Errorf("%s audits %q, which the audit page does not name", f, action)
			}
		}
	}
}

// TestRefusedAttemptsAudited: an operator whose role may not act gets 403 and the audit log says
// who tried which route, by its pattern; a page the role may not open is refused without an
// entry (it changes nothing), and nothing else is recorded.
func TestRefusedAttemptsAudited(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	user := h.createUser("Ref", "Used")
	support, op := h.signedIn(dashstore.RoleSupport)
	wantStatus(t, support.post("/users/"+user.ID+"/payouts", url.Values{"amount": {"5.00"}, "platform": {"paypal"}}), http.StatusForbidden)
	wantStatus(t, support.get("/bulk"), http.StatusForbidden)

	got := h.auditActions("route", "")
	if len(got) != 1 {
		t.Fatalf("audit entries for refused routes = %+v, want one", got)
	}
	e := got[0]
	if e.Action != "access.denied" || e.OperatorID != op.ID || e.ObjectID != "POST /users/:id/payouts" ||
		!strings.Contains(e.Detail, string(web.PermMoneyMove)) {
		t.Errorf("entry = %+v", e)
	}
	manager, _ := h.signedIn(dashstore.RoleManager)
	wantBody(t, manager.get("/audit?action=access.denied"), "Tried an action their role does not allow", "POST /users/:id/payouts")
}
