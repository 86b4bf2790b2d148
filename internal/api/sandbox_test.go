package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestSandboxMessages: the sandbox inbox is the app's own, behind its credentials, paged, and
// only in sandbox mode.
func TestSandboxMessages(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	env := w.env
	send := func(creds payouts.Credentials, userID string) {
		t.Helper()
		env.Clock.Advance(time.Minute)
		if r := env.DoAs(t, creds, "POST", "/v2/users/"+userID+"/send-verification-token", nil); r.Status != http.StatusAccepted {
			t.Fatalf("send: %d %s", r.Status, r.Body)
		}
	}
	send(w.app, w.user.ID)
	send(w.app, w.user.ID)
	send(w.other, w.otherUser.ID)

	runCalls(t, env, []call{
		{name: "no credentials", method: "GET", path: "/v2/sandbox/messages", header: map[string]string{"Authorization": ""},
			status: http.StatusUnauthorized, code: payouts.EUnauthorized},
		{name: "a bad limit", method: "GET", path: "/v2/sandbox/messages?limit=0", status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "limit"},
	})

	var first payouts.List[payouts.SandboxMessage]
	env.Do(t, "GET", "/v2/sandbox/messages?limit=1", nil).Decode(t, &first)
	if len(first.Data) != 1 || !first.HasMore || !strings.Contains(first.Data[0].Body, "Your verification code is") ||
		first.Data[0].To != w.user.PhoneNumber.String() {
		t.Fatalf("first page: %+v", first)
	}
	var rest payouts.List[payouts.SandboxMessage]
	env.Do(t, "GET", "/v2/sandbox/messages?limit=10&starting_after="+first.Data[0].ID, nil).Decode(t, &rest)
	if len(rest.Data) != 1 || rest.HasMore || rest.Data[0].ID == first.Data[0].ID {
		t.Fatalf("second page: %+v", rest)
	}
	var theirs payouts.List[payouts.SandboxMessage]
	env.DoAs(t, w.other, "GET", "/v2/sandbox/messages", nil).Decode(t, &theirs)
	if len(theirs.Data) != 1 || theirs.Data[0].To != w.otherUser.PhoneNumber.String() {
		t.Fatalf("the other app's inbox: %+v", theirs)
	}

	// The database keeps no code in clear.
	var bodies []string
	rows, err := env.Store.DB().QueryContext(t.Context(), `SELECT body FROM sandbox_messages`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	for _, b := range bodies {
		if strings.Contains(b, "verification code") || servicetest.TokenPattern.MatchString(b) {
			t.Errorf("a message body is stored in clear: %q", b)
		}
	}

	off := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = true }))
	call{method: "GET", path: "/v2/sandbox/messages", status: http.StatusNotFound, code: payouts.ENotFound}.do(t, off)
}

// TestDeliveryFailed: a message the gateway does not deliver is a 422 delivery-failed, never a
// 500.
func TestDeliveryFailed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := userBody()
	body["phone_number"] = "4155550000"
	var u payouts.User
	call{method: "POST", path: "/v2/users", body: body, status: http.StatusCreated}.do(t, w.env).Decode(t, &u)
	call{method: "POST", path: "/v2/users/" + u.ID + "/send-verification-token",
		status: http.StatusUnprocessableEntity, code: payouts.EDeliveryFailed, field: "phone_number"}.do(t, w.env)
}

// TestRedirectHTTPS: a flow's redirect_url is https, or http to localhost in sandbox mode.
func TestRedirectHTTPS(t *testing.T) {
	t.Parallel()
	steps := func(u string) map[string]any {
		return map[string]any{"steps": []any{map[string]any{"name": "redirect", "redirect_url": u}}}
	}
	sandbox := servicetest.Start(t)
	live := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = true }))
	tests := []struct {
		name string
		env  *servicetest.Env
		url  string
		ok   bool
	}{
		{"https", live, "https://app.example/back", true},
		{"http elsewhere", sandbox, "http://app.example/back", false},
		{"http to localhost in sandbox mode", sandbox, "http://localhost:3000/back", true},
		{"http to 127.0.0.1 in sandbox mode", sandbox, "http://127.0.0.1:3000/back", true},
		{"http to localhost outside sandbox mode", live, "http://localhost:3000/back", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := call{method: "POST", path: "/v2/flows", body: steps(tt.url), status: http.StatusOK}
			if !tt.ok {
				c.status, c.code, c.field = http.StatusBadRequest, payouts.EInvalidInput, "steps"
			}
			c.do(t, tt.env)
		})
	}
}
