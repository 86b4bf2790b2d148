package handlers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

var shownSecret = regexp.MustCompile(`(whsec_[A-Za-z0-9+/=]+)`)

// hook is one delivery a receiver got.
type hook struct {
	header http.Header
	body   []byte
}

// hookReceiver is a real HTTP receiver; deliveries come through the channel.
func hookReceiver(t *testing.T) (string, <-chan hook) {
	t.Helper()
	got := make(chan hook, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- hook{header: r.Header.Clone(), body: body}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, got
}

// next waits for the service's background worker to deliver the next event of type typ, skipping
// others, and checks that it verifies under every secret given. The bound only keeps a broken
// delivery from hanging the test.
func next(t *testing.T, got <-chan hook, typ payouts.EventType, secrets ...string) payouts.Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case h := <-got:
			for _, secret := range secrets {
				if err := client.VerifyWebhook(secret, h.header, h.body); err != nil {
					t.Fatalf("delivery does not verify: %v", err)
				}
			}
			var e payouts.Event
			if err := json.Unmarshal(h.body, &e); err != nil {
				t.Fatal(err)
			}
			if e.Type == typ {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s delivery arrived", typ)
		}
	}
}

func TestWebhooksDashboard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	support, _ := h.signedIn(dashstore.RoleSupport)
	receiverURL, got := hookReceiver(t)

	t.Run("support may not manage webhooks", func(t *testing.T) {
		wantStatus(t, support.get("/webhooks"), http.StatusForbidden)
	})

	t.Run("no endpoint yet says what to do", func(t *testing.T) {
		wantBody(t, admin.get("/webhooks"), "No endpoints yet", "Add one below")
	})

	t.Run("a bad URL re-renders the form", func(t *testing.T) {
		res := admin.post("/webhooks", url.Values{"url": {"ftp://hooks.example.com"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "must be an http or https URL", `value="ftp://hooks.example.com"`)
	})

	res := admin.post("/webhooks", url.Values{"url": {receiverURL + "/in"}, "description": {"Ledger sync"}})
	wantStatus(t, res, http.StatusCreated)
	m := shownSecret.FindStringSubmatch(res.body)
	if m == nil {
		t.Fatalf("no secret shown:\n%s", res.body)
	}
	secret := m[1]
	list, err := h.payouts.ListWebhookEndpoints(t.Context())
	if err != nil || len(list.Data) != 1 {
		t.Fatalf("endpoints %v, %v", list, err)
	}
	ep := list.Data[0]
	if strings.Contains(admin.get("/webhooks").body, secret) || strings.Contains(admin.get("/webhooks/"+ep.ID).body, secret) {
		t.Error("the secret is shown again")
	}
	wantBody(t, admin.get("/webhooks/"+ep.ID), "No delivery attempts yet")

	user := h.createUser("Wendy", "Hook")
	created := next(t, got, payouts.EventUserCreated, secret)

	t.Run("the object's page lists its events", func(t *testing.T) {
		wantBody(t, admin.htmxGet("/users/"+user.ID+"/events"), "user.created", created.ID)
		wantBody(t, admin.get("/users/"+user.ID), "/users/"+user.ID+"/events")
	})

	t.Run("the endpoint page shows the attempt", func(t *testing.T) {
		// The worker records the attempt after the receiver has answered, so the page may lag
		// the delivery by a moment; the bound only keeps a broken record from hanging the test.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			body := admin.get("/webhooks/" + ep.ID).body
			if strings.Contains(body, "succeeded") || time.Now().After(deadline) {
				break
			}
		}
		wantBody(t, admin.get("/webhooks/"+ep.ID), created.ID, "200", "succeeded")
	})

	t.Run("managers read endpoints and attempts, and change nothing", func(t *testing.T) {
		manager, _ := h.signedIn(dashstore.RoleManager)
		for _, page := range []string{"/webhooks", "/webhooks/" + ep.ID} {
			res := manager.get(page)
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, ep.URL, `data-testid="webhooks-read-only"`)
			if strings.Contains(res.body, secret) || strings.Contains(res.body, `method="post" action="/webhooks`) {
				t.Errorf("%s shows a manager the secret or a form that changes webhooks", page)
			}
		}
		wantBody(t, manager.get("/webhooks/"+ep.ID), created.ID, "succeeded")
		before := len(h.auditActions("webhook", ep.ID))
		for _, action := range []struct {
			path string
			form url.Values
		}{
			{"/webhooks", url.Values{"url": {receiverURL + "/manager"}}},
			{"/webhooks/" + ep.ID + "/enabled", url.Values{"enabled": {"false"}}},
			{"/webhooks/" + ep.ID + "/rotate", nil},
			{"/webhooks/" + ep.ID + "/test", nil},
			{"/webhooks/" + ep.ID + "/resend", url.Values{"event_id": {created.ID}}},
		} {
			wantStatus(t, manager.post(action.path, action.form), http.StatusForbidden)
		}
		if e, _ := h.payouts.GetWebhookEndpoint(t.Context(), ep.ID); !e.Enabled {
			t.Error("a manager disabled the endpoint")
		}
		if list, _ := h.payouts.ListWebhookEndpoints(t.Context()); len(list.Data) != 1 {
			t.Errorf("%d endpoints after a manager's tries, want 1", len(list.Data))
		}
		if after := len(h.auditActions("webhook", ep.ID)); after != before {
			t.Errorf("a manager's tries left %d audit entries, want %d", after, before)
		}
	})

	t.Run("a resend from the dashboard arrives", func(t *testing.T) {
		wantRedirect(t, admin.post("/webhooks/"+ep.ID+"/resend", url.Values{"event_id": {created.ID}}), "/webhooks/"+ep.ID)
		if again := next(t, got, payouts.EventUserCreated, secret); again.ID != created.ID {
			t.Fatalf("resent %s, want %s", again.ID, created.ID)
		}
	})

	t.Run("a test event arrives", func(t *testing.T) {
		wantRedirect(t, admin.post("/webhooks/"+ep.ID+"/test", nil), "/webhooks/"+ep.ID)
		next(t, got, payouts.EventWebhookTest, secret)
	})

	t.Run("rotate shows a new secret, and both sign for a while", func(t *testing.T) {
		res := admin.post("/webhooks/"+ep.ID+"/rotate", nil)
		wantStatus(t, res, http.StatusOK)
		m := shownSecret.FindStringSubmatch(res.body)
		if m == nil || m[1] == secret {
			t.Fatalf("no new secret shown")
		}
		wantRedirect(t, admin.post("/webhooks/"+ep.ID+"/test", nil), "/webhooks/"+ep.ID)
		next(t, got, payouts.EventWebhookTest, m[1], secret)
	})

	t.Run("disable and enable", func(t *testing.T) {
		wantRedirect(t, admin.post("/webhooks/"+ep.ID+"/enabled", url.Values{"enabled": {"false"}}), "/webhooks/"+ep.ID)
		if e, _ := h.payouts.GetWebhookEndpoint(t.Context(), ep.ID); e.Enabled {
			t.Fatal("still enabled")
		}
		wantRedirect(t, admin.post("/webhooks/"+ep.ID+"/enabled", url.Values{"enabled": {"true"}}), "/webhooks/"+ep.ID)
		if e, _ := h.payouts.GetWebhookEndpoint(t.Context(), ep.ID); !e.Enabled {
			t.Fatal("still disabled")
		}
	})
}
