package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// An object's events are shown only under the URL of its own kind: an id of another kind is not
// found, so a role that may not read transfers cannot read a payout's events through a URL of a
// kind it may read.
func TestObjectEventsCheckTheKind(t *testing.T) {
	h := newHarness(t)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	support, _ := h.signedIn(dashstore.RoleSupport)
	manager, _ := h.signedIn(dashstore.RoleManager)
	payee := h.fundedUser("Evan", "Events", 50_00)
	payout := h.flaggedPayout(payee)
	deposit := h.deposit(20_00)
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 5_00, UserID: payee.ID})

	tests := []struct {
		name   string
		as     *agent
		path   string
		status int
		body   string
	}{
		{"a user's events under /users", support, "/users/" + payee.ID + "/events", http.StatusOK, "user.created"},
		{"a payout's events under /transfers", admin, "/transfers/" + payout.ID + "/events", http.StatusOK, "payout.created"},
		{"a link's events under /payout-links", support, "/payout-links/" + link.ID + "/events", http.StatusOK, "payout_link.created"},
		{"a payout's id under /users", support, "/users/" + payout.ID + "/events", http.StatusNotFound, ""},
		{"a payout's id under /payout-links", support, "/payout-links/" + payout.ID + "/events", http.StatusNotFound, ""},
		{"a deposit's id under /users", support, "/users/" + deposit.ID + "/events", http.StatusNotFound, ""},
		{"a user's id under /payout-links", support, "/payout-links/" + payee.ID + "/events", http.StatusNotFound, ""},
		{"a link's id under /flows", manager, "/flows/" + link.ID + "/events", http.StatusNotFound, ""},
		{"a user's id under /transfers", manager, "/transfers/" + payee.ID + "/events", http.StatusNotFound, ""},
		{"support may not read transfers", support, "/transfers/" + payout.ID + "/events", http.StatusForbidden, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.as.htmxGet(tt.path)
			wantStatus(t, res, tt.status)
			if tt.body != "" {
				wantBody(t, res, tt.body)
			}
			if tt.status != http.StatusOK {
				for _, leaked := range []string{"payout.created", "transfer.created", "user.created", "payout_link.created"} {
					if strings.Contains(res.body, leaked) {
						t.Fatalf("the answer shows %s", leaked)
					}
				}
			}
		})
	}
}

// The app's events page lists every object's events, narrows them by type and user, and on the
// public API, which has no events list, says so instead.
func TestEventsPage(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			manager, _ := h.signedIn(dashstore.RoleManager)
			support, _ := h.signedIn(dashstore.RoleSupport)
			ann, bob := h.createUser("Ann", "Events"), h.createUser("Bob", "Events")
			h.deposit(10_00)
			link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 5_00, UserID: ann.ID})

			wantStatus(t, support.get("/events"), http.StatusForbidden)
			if b.public {
				res := manager.get("/events")
				wantStatus(t, res, http.StatusOK)
				wantBody(t, res, apiNote, "not available on this API")
				return
			}
			count := func(res response) int { return strings.Count(res.body, `data-event-type="`) }
			page := manager.get("/events")
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, `name="type"`, `value="payout_link.created"`, `name="user"`, `href="/users/`+ann.ID+`"`,
				`href="/payout-links/`+link.ID+`"`, `href="/events?object_id=`+bob.ID+`"`, `data-local`)
			for _, tc := range []struct {
				query string
				want  int
			}{
				{"type=user.created", 2},
				{"type=payout_link.created", 1},
				{"user_id=" + bob.ID, 1},
				{"user=" + url.QueryEscape(bob.Email), 1},
				{"object_id=" + link.ID + "&type=payout_link.created", 1},
				{"type=user.created&object_id=" + link.ID, 0},
				// A filter that cannot be read lists nothing rather than everything.
				{"type=user.exploded", 0},
				{"user=nobody", 0},
				{"user=bob", 1}, // the one user a name finds
			} {
				res := manager.htmxGet("/events?" + tc.query)
				wantStatus(t, res, http.StatusOK)
				if got := count(res); got != tc.want {
					t.Errorf("events?%s: %d events, want %d", tc.query, got, tc.want)
				}
			}
			wantBody(t, manager.get("/events?type=user.exploded"), "choose an event type from the list")
		})
	}
}
