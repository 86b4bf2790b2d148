package handlers_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
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
