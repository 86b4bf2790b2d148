package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestOperatorTimeZone: an operator sets their time zone once (the form is prefilled with the
// browser's by the page's script) and from then on every day a list or statement filters by is
// their day, whatever zone a link's query names, and the page says which zone. A zone that does
// not exist is a field error.
func TestOperatorTimeZone(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{sharedClock: true})
	// 22:00 on Mar 1 and 21:00 on Mar 2 in New York; Mar 2 and Mar 3 in UTC.
	h.clock.Set(time.Date(2026, 3, 2, 3, 0, 0, 0, time.UTC))
	h.deposit(1_00)
	h.clock.Set(time.Date(2026, 3, 3, 2, 0, 0, 0, time.UTC))
	h.deposit(2_00)
	a, op := h.signedIn(dashstore.RoleManager)

	day := "/transfers?from=2026-03-02&to=2026-03-02"
	wantBody(t, a.get(day), `data-testid="summary-count">1<`, "$1.00", "Days in UTC")

	settings := a.get("/settings")
	wantStatus(t, settings, http.StatusOK)
	wantBody(t, settings, `name="time_zone"`, "data-timezone")
	for _, tc := range []struct {
		name, zone string
		status     int
	}{{"unknown zone", "Mars/Olympus_Mons", http.StatusUnprocessableEntity}, {"empty", "", http.StatusUnprocessableEntity}} {
		t.Run(tc.name, func(t *testing.T) {
			res := a.post("/settings/time-zone", url.Values{"time_zone": {tc.zone}})
			wantStatus(t, res, tc.status)
			wantBody(t, res, "choose a time zone")
		})
	}
	wantRedirect(t, a.post("/settings/time-zone", url.Values{"time_zone": {"America/New_York"}}), "/settings")
	if got, err := h.store.Operator(t.Context(), op.ID); err != nil || got.TimeZone != "America/New_York" {
		t.Fatalf("operator %+v, %v; want the zone saved", got, err)
	}
	if got := h.auditActions("operator", op.ID); len(got) == 0 || got[0].Action != "operator.time_zone" {
		t.Errorf("audit %+v, want the change of zone", got)
	}
	for _, path := range []string{day, day + "&tz=UTC"} {
		wantBody(t, a.get(path), `data-testid="summary-count">1<`, "$2.00", "Days in America/New_York")
	}
	wantBody(t, a.get("/statement?from=2026-03-02&to=2026-03-02&tz=UTC"), "$2.00", "Days in America/New_York")
}

// TestOverviewInOperatorZone: at 19:01 in New York, already the next day in UTC, "Paid out
// today" and the chart count the New York operator's day and say so; an operator without a zone
// reads UTC days. On the public API, which has no stats, the page claims no day's figure and
// its failure window names the zone too.
func TestOverviewInOperatorZone(t *testing.T) {
	for _, public := range []bool{false, true} {
		t.Run(map[bool]string{false: "our service", true: "public API"}[public], func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{sharedClock: true, public: public})
			u := h.fundedUser("Nia", "York", 100_00)
			pay := func(cents int64) {
				t.Helper()
				if _, err := h.payouts.CreatePayout(t.Context(), payouts.CreatePayoutRequest{UserID: u.ID, Amount: cents,
					Platform: payouts.PlatformDefault}); err != nil {
					t.Fatal(err)
				}
			}
			h.clock.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)) // 10:00 in New York
			pay(20_00)
			h.clock.Set(time.Date(2026, 3, 3, 0, 1, 0, 0, time.UTC)) // 19:01 in New York, Mar 2
			pay(5_00)
			york, yorkOp := h.signedIn(dashstore.RoleOperations)
			if err := h.store.SetOperatorTimeZone(t.Context(), yorkOp.ID, "America/New_York", h.clock.Now()); err != nil {
				t.Fatal(err)
			}
			utc, _ := h.signedIn(dashstore.RoleManager)
			for _, tc := range []struct {
				name      string
				a         *agent
				zone      string
				today     string
				count     string
				todayDate string
			}{
				{"New York", york, "America/New_York", "$25.00", "2 payouts", "2026-03-02"},
				{"UTC", utc, "UTC", "$5.00", "1 payout ·", "2026-03-03"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					page := tc.a.get("/overview")
					wantStatus(t, page, http.StatusOK)
					wantBody(t, page, "Days in "+tc.zone)
					if public {
						if strings.Contains(page.body, "Paid out today") {
							t.Error("the public API's overview claims today's payouts it cannot count")
						}
						return
					}
					wantBody(t, page, `data-testid="today-payouts"><span class="tabular-nums">`+tc.today+`<`, tc.count)
					bars := regexp.MustCompile(`data-date="([^"]+)"`).FindAllStringSubmatch(page.body, -1)
					if len(bars) != 30 || bars[29][1] != tc.todayDate {
						t.Errorf("chart's last day %v, want %s", bars[len(bars)-1], tc.todayDate)
					}
				})
			}
		})
	}
}
