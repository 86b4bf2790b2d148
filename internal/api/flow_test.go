package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// createFlow makes a flow as the app with creds; it must answer 200, as API.md says.
func createFlow(t *testing.T, env *servicetest.Env, creds payouts.Credentials, body any) payouts.Flow {
	t.Helper()
	var f payouts.Flow
	call{method: "POST", path: "/v2/flows", as: &creds, body: body, status: http.StatusOK}.do(t, env).Decode(t, &f)
	return f
}

func flowIDs(flows []payouts.Flow) []string {
	ids := make([]string, len(flows))
	for i, f := range flows {
		ids[i] = f.ID
	}
	return ids
}

func TestCreateFlow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	path := "/v2/flows"

	invalid := func(name string, body any, field string) call {
		return call{name: name, method: "POST", path: path, body: body, status: http.StatusBadRequest, code: payouts.EInvalidInput, field: field}
	}
	steps := func(steps ...any) map[string]any { return map[string]any{"steps": steps} }
	redirect := func(url any) map[string]any { return map[string]any{"name": "redirect", "redirect_url": url} }
	calls := badBodies("POST", path, `{"steps": "payout"}`, "steps")
	calls = append(calls,
		invalid("no steps", map[string]any{"user_id": w.user.ID}, "steps"),
		invalid("steps null", map[string]any{"steps": nil}, "steps"),
		invalid("steps empty", steps(), "steps"),
		invalid("unknown step", steps("payout", "tax-return"), "steps"),
		invalid("step in capitals", steps("Payout"), "steps"),
		invalid("step named twice", steps("payout", "payout"), "steps"),
		invalid("step named twice, once as an object", steps("compliance", map[string]any{"name": "compliance"}), "steps"),
		invalid("redirect without redirect_url", steps("redirect"), "steps"),
		invalid("redirect object without redirect_url", steps(map[string]any{"name": "redirect"}), "steps"),
		invalid("redirect to ftp", steps(redirect("ftp://example.com/")), "steps"),
		invalid("redirect to a script", steps(redirect("javascript:alert(1)")), "steps"),
		invalid("redirect without a host", steps(redirect("https://")), "steps"),
		invalid("redirect_url a number", steps(redirect(5)), "steps.redirect_url"),
		invalid("step name a number", steps(map[string]any{"name": 5}), "steps.name"),
		invalid("step object without a name", steps(map[string]any{"redirect_url": "https://example.com"}), "steps"),
		invalid("step a number", steps(5), ""), // see TestStepOfWrongTypeNamesField
		invalid("malformed user_id", map[string]any{"steps": []string{"payout"}, "user_id": "ada"}, "user_id"),
		invalid("user_id a number", map[string]any{"steps": []string{"payout"}, "user_id": 7}, "user_id"),
		invalid("metadata over 8 KiB", map[string]any{"steps": []string{"payout"}, "metadata": bigMetadata()}, "metadata"),
		invalid("metadata a number", map[string]any{"steps": []string{"payout"}, "metadata": 5}, "metadata"),
		call{name: "unknown user", method: "POST", path: path, body: map[string]any{"steps": []string{"payout"}, "user_id": unknownID},
			status: http.StatusNotFound, code: payouts.ENotFound},
		call{name: "another app's user", method: "POST", path: path, body: map[string]any{"steps": []string{"payout"}, "user_id": w.otherUser.ID},
			status: http.StatusNotFound, code: payouts.ENotFound},
	)
	runCalls(t, env, calls)

	var list payouts.List[payouts.Flow]
	env.Do(t, "GET", path, nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("refused requests made flows: %+v", list.Data)
	}

	for _, tt := range []struct {
		name      string
		body      map[string]any
		wantSteps []string
		wantUser  string
		redirect  string
		metadata  string // as the answer writes it
	}{
		{"names, run in the flow's order", steps("payout", "compliance"),
			[]string{"compliance", "payout"}, "", "", "null"},
		{"objects, for a user, with metadata",
			map[string]any{"steps": []any{map[string]any{"name": "manage-payouts"}, redirect("https://example.com/back?x=1"), "background-check"},
				"user_id": w.user.ID, "metadata": map[string]any{"k": "v"}},
			[]string{"background-check", "manage-payouts", "redirect"}, w.user.ID, "https://example.com/back?x=1", `{"k":"v"}`},
		{"every step", steps(redirect("http://localhost:8080/done"), "tax-forms", "payout", "manage-payouts", "manage-payments", "background-check", "id-verification", "compliance"),
			payouts.StepNames, "", "http://localhost:8080/done", "null"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := call{method: "POST", path: path, body: tt.body, status: http.StatusOK}.do(t, env)
			var f payouts.Flow
			resp.Decode(t, &f)
			if !payouts.ValidID(f.ID) || !slices.Equal(f.Steps, tt.wantSteps) || f.Link != env.Origin+"/f/"+f.ID ||
				f.RedirectURL != tt.redirect || string(f.Metadata) != tt.metadata || f.PayoutLinkID != nil {
				t.Errorf("flow %+v", f)
			}
			if (f.UserID == nil) != (tt.wantUser == "") || (f.UserID != nil && *f.UserID != tt.wantUser) {
				t.Errorf("user_id %v, want %q", f.UserID, tt.wantUser)
			}
			// A new flow has completed nothing: an empty array, not null.
			if !strings.Contains(string(resp.Body), `"completed_steps":[]`) {
				t.Errorf("completed_steps of a new flow: %s", resp.Body)
			}
			var got payouts.Flow
			call{method: "GET", path: "/v2/flows/" + f.ID, status: http.StatusOK}.do(t, env).Decode(t, &got)
			if got.ID != f.ID || !slices.Equal(got.Steps, f.Steps) || got.RedirectURL != f.RedirectURL || got.Link != f.Link {
				t.Errorf("read back %+v, want %+v", got, f)
			}
		})
	}
}

// TestStepOfWrongTypeNamesField sends a step that is neither a name nor an object. The 400 must
// name the field, as every other value of the wrong type does (API.md: "fields" for validation).
func TestStepOfWrongTypeNamesField(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	runCalls(t, env, []call{
		{name: "flow", method: "POST", path: "/v2/flows", body: `{"steps": [5]}`,
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "steps"},
		{name: "payout link", method: "POST", path: "/v2/payout-links", body: `{"amount": 100, "additional_steps": [true]}`,
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "additional_steps"},
	})
}

func TestListFlows(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	var made []payouts.Flow
	for _, step := range []string{"compliance", "payout", "id-verification"} {
		env.Clock.Advance(time.Second) // newest first is one order
		made = append(made, createFlow(t, env, w.app, map[string]any{"steps": []string{step}}))
	}
	theirs := createFlow(t, env, w.other, map[string]any{"steps": []string{"payout"}})
	first, second, third := made[0], made[1], made[2]

	for _, tt := range []struct {
		name, query string
		want        []payouts.Flow
		hasMore     bool
	}{
		{"all, newest first", "", []payouts.Flow{third, second, first}, false},
		{"first page", "?limit=2", []payouts.Flow{third, second}, true},
		{"next page", "?limit=2&starting_after=" + second.ID, []payouts.Flow{first}, false},
		{"previous page", "?ending_before=" + first.ID, []payouts.Flow{third, second}, false},
		{"limit 100", "/?limit=100", []payouts.Flow{third, second, first}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l payouts.List[payouts.Flow]
			call{method: "GET", path: "/v2/flows" + tt.query, status: http.StatusOK}.do(t, env).Decode(t, &l)
			if got, want := flowIDs(l.Data), flowIDs(tt.want); !slices.Equal(got, want) || l.HasMore != tt.hasMore {
				t.Errorf("listed %v (has_more %v), want %v (%v)", got, l.HasMore, want, tt.hasMore)
			}
		})
	}
	calls := pageCalls("/v2/flows")
	calls = append(calls, call{name: "another app's cursor", method: "GET", path: "/v2/flows?starting_after=" + theirs.ID,
		status: http.StatusBadRequest, code: payouts.EInvalidInput})
	runCalls(t, env, calls)
}

func TestGetFlow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	mine := createFlow(t, env, w.app, map[string]any{"steps": []string{"payout"}, "user_id": w.user.ID})
	theirs := createFlow(t, env, w.other, map[string]any{"steps": []string{"payout"}})
	t.Run("success", func(t *testing.T) {
		var f payouts.Flow
		call{method: "GET", path: "/v2/flows/" + mine.ID, status: http.StatusOK}.do(t, env).Decode(t, &f)
		if f.ID != mine.ID || !slices.Equal(f.Steps, []string{"payout"}) || f.UserID == nil || *f.UserID != w.user.ID ||
			len(f.CompletedSteps) != 0 || f.Link != mine.Link {
			t.Errorf("flow %+v, want %+v", f, mine)
		}
	})
	runCalls(t, env, notFoundCalls("GET", func(id string) string { return "/v2/flows/" + id }, nil, theirs.ID))
}
