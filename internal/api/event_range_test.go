package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestListEventsCreatedRange checks the events list's creation range (extension event-filters)
// on both engines: it lists the app's events of the range and no other app's, and a bad bound is
// a 400 naming its parameter, as on the transfers list.
func TestListEventsCreatedRange(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env := servicetest.Start(t, engine.opts()...)
			app, other := env.Credentials(), env.CreateApp(t, "Other app")
			day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
			users := map[int]payouts.User{} // the app's user made on each day
			for i := range 3 {
				env.Clock.Set(day.AddDate(0, 0, i).Add(9 * time.Hour))
				users[i] = createUser(t, env, app)
				createUser(t, env, other)
			}
			env.Clock.Set(time.Time{})

			bounds := func(from, to time.Time) string {
				q := url.Values{}
				payouts.Range{CreatedFrom: from, CreatedTo: to}.Query(q.Set)
				return q.Encode()
			}
			for _, tc := range []struct {
				name  string
				query string
				want  []int // the days whose user's events are listed, newest first
			}{
				{"the middle day", bounds(day.AddDate(0, 0, 1), day.AddDate(0, 0, 2)), []int{1}},
				{"from the middle day", bounds(day.AddDate(0, 0, 1), time.Time{}), []int{2, 1}},
				{"before the middle day", bounds(time.Time{}, day.AddDate(0, 0, 1)), []int{0}},
				{"an instant in another zone", "created_lt=" + url.QueryEscape("2026-03-03T10:30:00+01:00"), []int{1, 0}},
				{"a day without events", bounds(day.AddDate(0, 0, 5), day.AddDate(0, 0, 6)), nil},
			} {
				t.Run(tc.name, func(t *testing.T) {
					list := servicetest.Want[payouts.List[payouts.Event]](t, env.DoAs(t, app, "GET", "/v2/events?"+tc.query, nil), "list events", http.StatusOK)
					var got []string
					for _, e := range list.Data {
						if e.AppID != app.AppID {
							t.Fatalf("another app's event: %+v", e)
						}
						got = append(got, e.ObjectID)
					}
					var want []string
					for _, i := range tc.want {
						want = append(want, users[i].ID)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("events of %v, want of %v", got, want)
					}
				})
			}
			runCalls(t, env, []call{
				{name: "created_gte not a time", method: "GET", path: "/v2/events?created_gte=yesterday", status: 400, code: payouts.EInvalidInput, field: payouts.QueryCreatedFrom},
				{name: "created_lt a date only", method: "GET", path: "/v2/events?created_lt=2026-03-01", status: 400, code: payouts.EInvalidInput, field: payouts.QueryCreatedTo},
				{name: "created_lt before created_gte", method: "GET", path: "/v2/events?created_gte=2026-03-02T00:00:00Z&created_lt=2026-03-01T00:00:00Z",
					status: 400, code: payouts.EInvalidInput, field: payouts.QueryCreatedTo},
				{name: "created_lt equal to created_gte", method: "GET", path: "/v2/events?created_gte=2026-03-02T00:00:00Z&created_lt=2026-03-02T00:00:00Z",
					status: 400, code: payouts.EInvalidInput, field: payouts.QueryCreatedTo},
			})
		})
	}
}
