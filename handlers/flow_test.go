package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

func TestCreateFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	manager, _ := h.signedIn(dashstore.RoleManager)
	u := h.createUser("Flo", "Flow")

	empty := manager.get("/flows")
	wantBody(t, empty, "No flows yet")
	if strings.Contains(empty.body, `href="/flows/new"`) {
		t.Error("a manager, who may not create flows, sees New flow")
	}
	form := ops.get("/flows/new?user=" + u.ID)
	wantStatus(t, form, http.StatusOK)
	for _, step := range payouts.StepNames {
		wantBody(t, form, `name="steps.`+step+`"`)
	}
	wantBody(t, form, `name="redirect_url"`, `name="user_id"`, `value="`+u.ID+`"`, `value="Flo Flow"`, `name="metadata"`)

	for _, tc := range []struct {
		name string
		form url.Values
		want []string
	}{
		{"no step", url.Values{}, []string{`id="field-steps-error"`, "must name at least one step"}},
		{"redirect without its URL", url.Values{"steps.redirect": {"true"}}, []string{`id="field-steps-error"`, "redirect_url"}},
		{"redirect to a script", url.Values{"steps.redirect": {"true"}, "redirect_url": {"javascript:alert(1)"}},
			[]string{`id="field-steps-error"`, `value="javascript:alert(1)"`}},
		{"bad metadata and no step at once", url.Values{"metadata": {"{oops"}}, []string{"Some fields need attention.",
			`id="field-steps-error"`, `id="field-metadata-error"`}},
		{"unknown user", url.Values{"steps.compliance": {"true"}, "user_id": {"00000000-0000-4000-8000-000000000000"}},
			[]string{`id="field-user-error"`, "No user has this id."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ops.post("/flows", tc.form)
			if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d, want 422 or 404\n%.1500s", res.StatusCode, res.body)
			}
			if res.StatusCode == http.StatusUnprocessableEntity {
				wantBody(t, res, tc.want...)
				if tc.form.Has("steps.redirect") {
					wantBody(t, res, `checked`) // the steps picked stay picked
				}
			}
		})
	}

	res := ops.post("/flows", url.Values{"steps.id-verification": {"true"}, "steps.background-check": {"true"},
		"steps.redirect": {"true"}, "redirect_url": {"https://example.com/back"}, "user_id": {u.ID}})
	wantRedirect(t, res, "/flows/")
	id := strings.TrimPrefix(res.Header.Get("Location"), "/flows/")
	f, err := h.payouts.GetFlow(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Steps, " ") != "id-verification background-check redirect" || f.RedirectURL != "https://example.com/back" ||
		deref(f.UserID) != u.ID {
		t.Errorf("flow as created: %+v", f)
	}
	if e := h.auditActions("flow", id); len(e) != 1 || e[0].Action != "flow.create" {
		t.Errorf("audit: %+v", e)
	}
	list := manager.get("/flows")
	if got := ids(list); len(got) != 1 || got[0] != id {
		t.Errorf("flows listed: %v", got)
	}
	wantBody(t, list, "0 of 3", `data-testid="flow-payee"`, `href="/users/`+u.ID+`"`, "Flo Flow", "("+u.Email+")",
		`href="/flows/`+id+`"`, "Flow <span class=\"font-mono\"")
}

func TestFlowPageAndProgress(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	u := h.createUser("Pro", "Gress")
	f := h.createFlow(payouts.CreateFlowRequest{UserID: u.ID, Steps: []payouts.Step{{Name: payouts.StepIDVerification},
		{Name: payouts.StepBackgroundCheck}}})
	flowURL := "/flows/" + f.ID

	page := manager.get(flowURL)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `<iframe id="flow-frame" src="`+f.Link+`"`, `id="flow-progress"`,
		`hx-get="/flows/`+f.ID+`/progress"`, `hx-trigger="every 2s"`, `hx-swap="outerHTML"`, "0 of 2 steps completed",
		`<progress`, `max="2"`, `value="0"`, "Identity check", "Background check", ">"+f.Link+"<")
	// The page's CSP lets the iframe show the service's pages.
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src 'self' http://127.0.0.1:8081") {
		t.Errorf("CSP %q lacks the service's origin in frame-src", csp)
	}

	if _, err := h.env.Service.CompleteFlowStep(t.Context(), f.ID, u.ID, payouts.StepIDVerification); err != nil {
		t.Fatal(err)
	}
	progress := manager.htmxGet(flowURL + "/progress")
	wantStatus(t, progress, http.StatusOK)
	wantBody(t, progress, `id="flow-progress"`, "1 of 2 steps completed", `value="1"`, `hx-trigger="every 2s"`)
	if strings.Contains(progress.body, "<iframe") {
		t.Error("the progress fragment holds more than the progress")
	}

	if _, err := h.env.Service.CompleteFlowStep(t.Context(), f.ID, u.ID, payouts.StepBackgroundCheck); err != nil {
		t.Fatal(err)
	}
	done := manager.htmxGet(flowURL + "/progress")
	wantBody(t, done, "2 of 2 steps completed", "Done")
	if strings.Contains(done.body, "hx-trigger") {
		t.Error("a finished flow's progress keeps polling")
	}
	wantStatus(t, manager.get("/flows/00000000-0000-4000-8000-000000000000"), http.StatusNotFound)
	wantStatus(t, manager.htmxGet("/flows/nope/progress"), http.StatusNotFound)
}

func TestFlowsPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	var want []string
	for range 30 {
		f := h.createFlow(payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepCompliance}}})
		want = append([]string{f.ID}, want...)
	}
	full := ops.get("/flows")
	wantBody(t, full, "<!doctype html>", `id="flows-table"`, `href="/flows/new"`, "Older →")
	for _, htmx := range []bool{false, true} {
		out, back := ops.walkPages("/flows", htmx)
		wantPagesBackAndForth(t, out, back, want, 25)
	}
}
