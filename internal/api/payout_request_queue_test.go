package api_test

import (
	"net/http"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestPayoutRequestQueue: the count of a status and the list oldest first, with cursors that
// follow the order, which a review queue worked from its head needs.
func TestPayoutRequestQueue(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			w := newWorld(t, engine.opts()...)
			env := w.env
			var made []payouts.PayoutRequest
			for range 4 {
				var r payouts.PayoutRequest
				call{method: "POST", path: "/v2/payout-requests", body: map[string]any{"amount": 5_00, "user_id": w.user.ID},
					status: http.StatusCreated}.do(t, env).Decode(t, &r)
				made = append(made, r)
			}
			call{method: "POST", path: "/v2/payout-requests/" + made[1].ID + "/review", body: map[string]any{"action": "reject"},
				status: http.StatusOK}.do(t, env)
			waiting := []string{made[0].ID, made[2].ID, made[3].ID} // oldest first

			for _, tc := range []struct {
				name  string
				path  string
				as    *payouts.Credentials
				count int64
			}{
				{"created", "/v2/payout-requests/count?status=created", nil, 3},
				{"rejected", "/v2/payout-requests/count?status=rejected", nil, 1},
				{"all", "/v2/payout-requests/count", nil, 4},
				{"another app's", "/v2/payout-requests/count", &w.other, 0},
			} {
				t.Run("count "+tc.name, func(t *testing.T) {
					var n payouts.PayoutRequestCount
					call{method: "GET", path: tc.path, as: tc.as, status: http.StatusOK}.do(t, env).Decode(t, &n)
					if n.Count != tc.count {
						t.Errorf("count %d, want %d", n.Count, tc.count)
					}
				})
			}

			list := "/v2/payout-requests?status=created&order=oldest&limit=2"
			for _, tc := range []struct {
				name, query string
				want        []string
				more        bool
			}{
				{"first page", "", waiting[:2], true},
				{"after it, newer", "&starting_after=" + waiting[1], waiting[2:], false},
				{"before the newest, older", "&ending_before=" + waiting[2], waiting[:2], false},
				{"before the second", "&ending_before=" + waiting[1], waiting[:1], false},
			} {
				t.Run("oldest first, "+tc.name, func(t *testing.T) {
					var l payouts.List[payouts.PayoutRequest]
					call{method: "GET", path: list + tc.query, status: http.StatusOK}.do(t, env).Decode(t, &l)
					var got []string
					for _, r := range l.Data {
						got = append(got, r.ID)
					}
					if len(got) != len(tc.want) || l.HasMore != tc.more {
						t.Fatalf("got %v (has_more %v), want %v (%v)", got, l.HasMore, tc.want, tc.more)
					}
					for i := range got {
						if got[i] != tc.want[i] {
							t.Fatalf("got %v, want %v", got, tc.want)
						}
					}
				})
			}

			var newest payouts.List[payouts.PayoutRequest]
			call{method: "GET", path: "/v2/payout-requests?status=created&order=newest&limit=1", status: http.StatusOK}.do(t, env).Decode(t, &newest)
			if len(newest.Data) != 1 || newest.Data[0].ID != waiting[2] {
				t.Errorf("newest first %+v", newest.Data)
			}
			for _, c := range []call{
				{name: "bad order", method: "GET", path: "/v2/payout-requests?order=sideways", status: 400, code: payouts.EInvalidInput, field: "order"},
				{name: "count with a bad status", method: "GET", path: "/v2/payout-requests/count?status=paid", status: 400, code: payouts.EInvalidInput, field: "status"},
			} {
				t.Run(c.name, func(t *testing.T) { c.do(t, env) })
			}
		})
	}
}
