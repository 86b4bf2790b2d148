package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// statsWorld is a world whose first day is the day before start: the clock stands at noon of
// that day while newWorld deposits and pays the users, then moves to start. No background worker
// runs.
func statsWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, servicetest.WithClock(testclock.New(start.Add(-24*time.Hour))),
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 }))
	w.env.Clock.Set(start)
	return w
}

// getStats reads the stats of the first app.
func getStats(t *testing.T, env *servicetest.Env, query string) payouts.AppStats {
	t.Helper()
	var s payouts.AppStats
	call{method: "GET", path: "/v2/apps/" + env.AppID + "/stats" + query, status: http.StatusOK}.do(t, env).Decode(t, &s)
	return s
}

func TestAppStats(t *testing.T) {
	t.Parallel()
	w := statsWorld(t)
	env := w.env
	// Yesterday: $100,000 deposited and $50 to the user (newWorld). Today, as follows.
	deposit(t, env, w.app, 500_00)
	transfer(t, env, w.app, w.user.ID, -30_00)
	addMethod(t, env, w.app, w.user.ID, paypalBody)
	venmo := addMethod(t, env, w.app, w.user.ID, failingVenmoBody)
	completed := createPayout(t, env, map[string]any{"user_id": w.user.ID, "amount": 20_00, "platform": "paypal"})
	if n := settle(t, env, 5*time.Second); n != 1 || getTransfer(t, env, completed.ID).Status != payouts.TransferCompleted {
		t.Fatalf("settled %d payouts, want the first one completed", n)
	}
	createPayout(t, env, map[string]any{"user_id": w.user.ID, "amount": 10_00, "platform": "paypal"})
	createPayout(t, env, map[string]any{"user_id": w.user.ID, "amount": flagAmount, "platform": "paypal"})
	if tr := createPayout(t, env, map[string]any{"user_id": w.user.ID, "amount": 5_00, "platform": "venmo", "account_id": venmo.ID}); tr.Status != payouts.TransferFailed {
		t.Fatalf("payout to the refusing venmo account: %s", tr.Status)
	}
	// The other app's activity counts only for the other app.
	deposit(t, env, w.other, 777_00)

	wantToday := payouts.DailyVolume{Date: "2026-03-02", Payouts: 30_00, PayoutCount: 2, Deposits: 500_00, ToUsers: 30_00}
	wantYesterday := payouts.DailyVolume{Date: "2026-03-01", Deposits: 100_000_00, ToUsers: 50_00}
	for _, tt := range []struct {
		name, query string
		days        int
		first       string
	}{
		{"default window", "", 30, "2026-02-01"},
		{"days=0 is the default", "?days=0", 30, "2026-02-01"},
		{"today only", "?days=1", 1, "2026-03-02"},
		{"two days", "?days=2", 2, "2026-03-01"},
		{"the longest window", "?days=366", 366, "2025-03-02"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := getStats(t, env, tt.query)
			if s.Today != wantToday {
				t.Errorf("today %+v, want %+v", s.Today, wantToday)
			}
			if s.Flagged != 1 || s.Failed != 1 || s.Pending != 1 {
				t.Errorf("flagged %d, failed %d, pending %d; want 1 each", s.Flagged, s.Failed, s.Pending)
			}
			if app := getApp(t, env, w.app); s.Wallet != app.Wallet {
				t.Errorf("wallet %+v, want the app's %+v", s.Wallet, app.Wallet)
			}
			if len(s.Days) != tt.days || s.Days[0].Date != tt.first || s.Days[len(s.Days)-1] != wantToday {
				t.Fatalf("%d days from %s to %+v, want %d from %s to today", len(s.Days), s.Days[0].Date, s.Days[len(s.Days)-1], tt.days, tt.first)
			}
			for i, d := range s.Days[:len(s.Days)-1] {
				want := payouts.DailyVolume{Date: d.Date}
				if d.Date == wantYesterday.Date {
					want = wantYesterday
				}
				if d != want {
					t.Errorf("day %d: %+v, want %+v", i, d, want)
				}
			}
		})
	}

	t.Run("the other app sees its own", func(t *testing.T) {
		var s payouts.AppStats
		call{method: "GET", path: "/v2/apps/" + w.other.AppID + "/stats?days=2", as: &w.other, status: http.StatusOK}.do(t, env).Decode(t, &s)
		want := payouts.DailyVolume{Date: "2026-03-02", Deposits: 777_00}
		if s.Today != want || s.Days[0] != (payouts.DailyVolume{Date: "2026-03-01", Deposits: 100_000_00, ToUsers: 50_00}) ||
			s.Flagged != 0 || s.Failed != 0 || s.Pending != 0 {
			t.Errorf("the other app's stats %+v", s)
		}
	})

	path := "/v2/apps/" + w.app.AppID + "/stats"
	var calls []call
	for _, q := range []string{"367", "-1", "abc", "1.5", "99999999999999999999"} {
		calls = append(calls, call{name: "days=" + q, method: "GET", path: path + "?days=" + q,
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "days"})
	}
	calls = append(calls, notFoundCalls("GET", func(id string) string { return "/v2/apps/" + id + "/stats" }, nil, w.other.AppID)...)
	runCalls(t, env, calls)
}

// TestAppStatsToUsers checks what to_users counts: money moved from the app to users' wallets,
// "balance transfers and claimed links" (payouts.DailyVolume). Money a user sends back to the
// app is not money to users, and a link nobody has claimed has moved nothing yet.
func TestAppStatsToUsers(t *testing.T) {
	t.Parallel()
	w := statsWorld(t)
	env := w.env
	toUsers := func() payouts.Money {
		t.Helper()
		return getStats(t, env, "?days=1").Today.ToUsers
	}
	transfer(t, env, w.app, w.user.ID, -20_00)
	if got := toUsers(); got != 20_00 {
		t.Fatalf("to_users %v after $20 to the user, want $20.00", got)
	}
	t.Run("a user's transfer to the app", func(t *testing.T) {
		transfer(t, env, w.app, w.user.ID, 5_00)
		if got := toUsers(); got != 20_00 {
			t.Errorf("to_users %v after the user sent $5 back, want $20.00", got)
		}
	})
	t.Run("an open payout link, then claimed", func(t *testing.T) {
		before := toUsers()
		l := createLink(t, env, w.app, map[string]any{"amount": 7_00})
		if got := toUsers(); got != before {
			t.Errorf("to_users %v with an unclaimed $7 link, want %v", got, before)
		}
		if _, err := env.Service.ClaimPayoutLink(context.Background(), l.ID, w.user.ID); err != nil {
			t.Fatalf("claim: %v", err)
		}
		if got := toUsers(); got != before+7_00 {
			t.Errorf("to_users %v after the $7 link was claimed, want %v", got, before+7_00)
		}
	})
}

// TestAppStatsZone: with zone, each day of the stats is a day of that zone, on both engines:
// a deposit at 19:01 in New York, already the next day in UTC, is New York's day; the day
// clocks go forward is 23 hours long; a zone 5:45 ahead of UTC moves days at a quarter hour.
// A zone that is not an IANA name is a 400 naming it.
func TestAppStatsZone(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		clock := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		w := newWorld(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock),
			servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 }))
		env := w.env
		for _, d := range []struct {
			at     time.Time
			amount int64
		}{
			{time.Date(2026, 3, 2, 18, 20, 0, 0, time.UTC), 3_00}, // 13:20 in New York, 00:05 Mar 3 in Kathmandu
			{time.Date(2026, 3, 3, 0, 1, 0, 0, time.UTC), 5_00},   // 19:01 in New York, Mar 2
			{time.Date(2026, 3, 9, 4, 30, 0, 0, time.UTC), 7_00},  // 00:30 Mar 9 in New York, on summer time
		} {
			clock.Set(d.at)
			deposit(t, env, w.app, d.amount)
		}
		clock.Set(time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC))
		first := payouts.DailyVolume{Date: "2026-03-01", Deposits: 100_000_00, ToUsers: 50_00}
		for _, tc := range []struct {
			name, zone string
			want       map[string]payouts.Money // deposits per day; other days none
		}{
			{"no zone is UTC", "", map[string]payouts.Money{"2026-03-02": 3_00, "2026-03-03": 5_00, "2026-03-09": 7_00}},
			{"UTC", "UTC", map[string]payouts.Money{"2026-03-02": 3_00, "2026-03-03": 5_00, "2026-03-09": 7_00}},
			{"New York", "America/New_York", map[string]payouts.Money{"2026-03-02": 8_00, "2026-03-09": 7_00}},
			{"Kathmandu", "Asia/Kathmandu", map[string]payouts.Money{"2026-03-03": 8_00, "2026-03-09": 7_00}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := getStats(t, env, "?days=10&zone="+tc.zone)
				if len(s.Days) != 10 || s.Days[0].Date != "2026-02-28" || s.Today.Date != "2026-03-09" {
					t.Fatalf("%d days from %s, today %s; want 10 from 2026-02-28 to 2026-03-09", len(s.Days), s.Days[0].Date, s.Today.Date)
				}
				for _, d := range s.Days {
					want := payouts.DailyVolume{Date: d.Date, Deposits: tc.want[d.Date]}
					if d.Date == first.Date {
						want = first
					}
					if d != want {
						t.Errorf("day %+v, want %+v", d, want)
					}
				}
			})
		}
		path := "/v2/apps/" + w.app.AppID + "/stats?zone="
		var calls []call
		for _, z := range []string{"Mars/Olympus_Mons", "Local", "../../etc/passwd", "%2Fetc%2Flocaltime"} {
			calls = append(calls, call{name: "zone " + z, method: "GET", path: path + z,
				status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "zone"})
		}
		runCalls(t, env, calls)
		res := env.Do(t, "GET", path+"Mars/Olympus_Mons", nil)
		if !strings.Contains(string(res.Body), `unknown time zone \"Mars/Olympus_Mons\"`) {
			t.Errorf("the error does not name the zone: %s", res.Body)
		}
	})
}
