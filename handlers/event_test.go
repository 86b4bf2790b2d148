package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// An object's events are shown only under the URL of its own kind: an id of another kind is not
// found, so a role that may not read transfers cannot read a payout's events through a URL of a
// kind it may read.
func TestObjectEventsCheckTheKind(t *testing.T) {
	t.Parallel()
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

// The app's events page lists every object's events, narrows them by type, user and days, and
// on the public API, which has no events list, says so instead. A service that lists events but
// cannot filter them by date (datesHidden) gets no dates: the page says so and lists every
// event, never as if filtered.
func TestEventsPage(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			var datesHidden atomic.Bool
			h := newHarnessWith(t, harnessSetup{public: b.public, handlers: func(c *handlers.Config) {
				c.Payouts = hidingExtension{Payouts: c.Payouts, ext: payouts.ExtEventFilters, hidden: &datesHidden}
			}})
			manager, _ := h.signedIn(dashstore.RoleManager)
			support, _ := h.signedIn(dashstore.RoleSupport)
			// Cleo's events are of a day long past; every other event is of today.
			march := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
			h.env.Clock.Set(march)
			cleo := h.createUser("Cleo", "Earlier")
			h.env.Clock.Set(time.Time{})
			ann, bob := h.createUser("Ann", "Events"), h.createUser("Bob", "Events")
			h.deposit(10_00)
			link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 5_00, UserID: ann.ID})

			wantStatus(t, support.get("/events"), http.StatusForbidden)
			if b.public {
				res := manager.get("/events?from=2026-03-02&to=2026-03-02")
				wantStatus(t, res, http.StatusOK)
				wantBody(t, res, apiNote, "not available on this API")
				if strings.Contains(res.body, `name="from"`) {
					t.Error("the public API's events page shows a date filter")
				}
				return
			}
			count := func(res response) int { return strings.Count(res.body, `data-event-type="`) }
			page := manager.get("/events")
			wantStatus(t, page, http.StatusOK)
			wantBody(t, page, `name="type"`, `value="payout_link.created"`, `name="user"`, `href="/users/`+ann.ID+`"`,
				`href="/payout-links/`+link.ID+`"`, `href="/events?object_id=`+bob.ID+`"`, `data-local`, `name="from"`, `name="to"`)
			every := count(page)
			for _, tc := range []struct {
				name        string
				datesHidden bool
				query       string
				want        int
				body        []string // also in the answer
			}{
				{"by type", false, "type=user.created", 3, nil},
				{"by one type of one", false, "type=payout_link.created", 1, nil},
				{"by user id", false, "user_id=" + bob.ID, 1, nil},
				{"by user email", false, "user=" + url.QueryEscape(bob.Email), 1, nil},
				{"by object and type", false, "object_id=" + link.ID + "&type=payout_link.created", 1, nil},
				{"by object of another type", false, "type=user.created&object_id=" + link.ID, 0, nil},
				// A filter that cannot be read lists nothing rather than everything.
				{"an unknown type", false, "type=user.exploded", 0, nil},
				{"an unknown user", false, "user=nobody", 0, nil},
				{"a name that finds one user", false, "user=bob", 1, nil},
				{"a day long past", false, "from=2026-03-02&to=2026-03-02", 1, []string{`value="2026-03-02"`, `href="/events?object_id=` + cleo.ID + `"`}},
				{"a day long past, in a zone where it is the next day", false, "from=2026-03-03&to=2026-03-03&tz=Pacific%2FKiritimati", 1, nil},
				{"up to the day before", false, "to=2026-03-01", 0, nil},
				{"from that day, of a type", false, "from=2026-03-02&type=user.created", 3, nil},
				{"a range ending before it starts", false, "from=2026-03-03&to=2026-03-02", 0, []string{"choose a day on or after the first day"}},
				{"a date that cannot be read", false, "from=March", 0, []string{"enter a date like 2026-03-31"}},
				{"dates on a service without them", true, "from=2026-03-02&to=2026-03-02", every,
					[]string{apiNote, "Filtering events by date: not available on this API"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					datesHidden.Store(tc.datesHidden)
					defer datesHidden.Store(false)
					res := manager.get("/events?" + tc.query)
					wantStatus(t, res, http.StatusOK)
					if got := count(res); got != tc.want {
						t.Errorf("events?%s: %d events, want %d", tc.query, got, tc.want)
					}
					wantBody(t, res, tc.body...)
					if shown := strings.Contains(res.body, `name="from"`); shown == tc.datesHidden {
						t.Errorf("date inputs shown: %v, with the dates hidden: %v", shown, tc.datesHidden)
					}
					if tc.datesHidden && strings.Contains(res.body, "from=2026") {
						t.Error("a link keeps dates the service did not apply")
					}
				})
			}
			// The pager keeps the dates: the page after the newest event links back with them.
			newest, err := h.payouts.ListEvents(context.Background(), payouts.Page{Limit: 1}, payouts.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			res := manager.htmxGet("/events?from=2026-03-02&after=" + newest.Data[0].ID)
			if got := count(res); got != every-1 {
				t.Errorf("the page after the newest event: %d events, want %d", got, every-1)
			}
			wantBody(t, res, "before=", "from=2026-03-02")
		})
	}
}

// hidingExtension is a service that offers every extension the real one does but ext, while
// hidden is set, as an older Payout Service would.
type hidingExtension struct {
	handlers.Payouts
	ext    payouts.Extension
	hidden *atomic.Bool
}

func (p hidingExtension) Extensions(ctx context.Context) (payouts.Extensions, error) {
	x, err := p.Payouts.Extensions(ctx)
	if p.hidden.Load() {
		x.Extensions = slices.DeleteFunc(slices.Clone(x.Extensions), func(e payouts.Extension) bool { return e == p.ext })
	}
	return x, err
}
