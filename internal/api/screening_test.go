package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/testutil/sanctionstest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestScreening: a payee matching the loaded SDN list is held, GET /v2/users/{id}/screening
// shows the hit to the app's credentials alone, and a release names who and why.
func TestScreening(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			w := newWorld(t, engine.opts()...)
			env := w.env
			none := servicetest.Want[payouts.Screening](t, env.Do(t, "GET", "/v2/users/"+w.user.ID+"/screening", nil), "no list", http.StatusOK)
			if none.ListVersion != "" || none.Hits == nil || len(none.Hits) != 0 {
				t.Fatalf("before any load: %+v", none)
			}
			l, dir := sanctionstest.Load(t, map[string]string{"SDN.CSV": sanctionstest.Individual(7001, "AL-RASHID, Ahmad Yusuf", "SDGT] [IRGC", "DOB 12 Mar 1970.")})
			if _, err := env.Service.LoadSanctions(context.Background(), l, dir); err != nil {
				t.Fatal(err)
			}
			body := userBody()
			body["first_name"], body["last_name"] = "Ahmad Yusuf", "Al-Rashid"
			u := servicetest.Want[payouts.User](t, env.Do(t, "POST", "/v2/users", body), "create user", http.StatusCreated)
			addMethod(t, env, w.app, u.ID, paypalBody)
			tr := createPayout(t, env, map[string]any{"user_id": u.ID, "amount": 10_00, "platform": "paypal", "fund": true})
			if tr.Status != payouts.TransferFlagged {
				t.Fatalf("the listed payee's payout is %s", tr.Status)
			}
			s := servicetest.Want[payouts.Screening](t, env.Do(t, "GET", "/v2/users/"+u.ID+"/screening", nil), "screening", http.StatusOK)
			if s.ListVersion != l.Version || len(s.Hits) != 1 || s.Hits[0].EntryUID != "SDN-7001" || s.Hits[0].Score != 1 {
				t.Fatalf("screening: %+v", s)
			}
			review := "/v2/transfers/" + tr.ID + "/review"
			runCalls(t, env, []call{
				{name: "another app's user", method: "GET", path: "/v2/users/" + u.ID + "/screening", as: &w.other, status: 404, code: payouts.ENotFound},
				{name: "unknown user", method: "GET", path: "/v2/users/nope/screening", status: 404, code: payouts.ENotFound},
				{name: "release without reviewer", method: "POST", path: review, body: map[string]any{"action": "release", "reason": "not them"},
					status: 400, code: payouts.EInvalidInput, field: "reviewer"},
				{name: "release without reason", method: "POST", path: review, body: map[string]any{"action": "release", "reviewer": "ops@acme.test"},
					status: 400, code: payouts.EInvalidInput, field: "reason"},
				{name: "release", method: "POST", path: review, body: map[string]any{"action": "release", "reviewer": "ops@acme.test", "reason": "not them"},
					status: 200},
			})
			s = servicetest.Want[payouts.Screening](t, env.Do(t, "GET", "/v2/users/"+u.ID+"/screening", nil), "screening", http.StatusOK)
			if h := s.Hits[0]; !h.Released || h.ReleasedBy != "ops@acme.test" || h.ReleaseReason != "not them" || h.ReleasedAt == nil {
				t.Fatalf("the release: %+v", h)
			}
		})
	}
}
