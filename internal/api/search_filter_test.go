package api_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestSearchFilters: flows by user_id and payout links by exact amount, our extensions, which
// the dashboard's search asks for instead of scanning the newest; bad values are 400 on their
// parameter.
func TestSearchFilters(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			w := newWorld(t, engine.opts()...)
			env := w.env
			deposit(t, env, w.app, 100_00)
			steps := []string{"payout"}
			hers := createFlow(t, env, w.app, map[string]any{"steps": steps, "user_id": w.user.ID})
			createFlow(t, env, w.app, map[string]any{"steps": steps})
			newer := createFlow(t, env, w.app, map[string]any{"steps": steps, "user_id": w.user.ID})
			createFlow(t, env, w.other, map[string]any{"steps": steps, "user_id": w.otherUser.ID})
			payee := map[string]any{"email": "bob@example.com", "first_name": "Bob"}
			five := createLink(t, env, w.app, map[string]any{"amount": 5_00, "payee": payee})
			createLink(t, env, w.app, map[string]any{"amount": 5_01, "payee": payee})
			fiveAgain := createLink(t, env, w.app, map[string]any{"amount": 5_00, "payee": payee})

			flows := func(t *testing.T, query string, want ...string) {
				t.Helper()
				var l payouts.List[payouts.Flow]
				call{method: "GET", path: "/v2/flows" + query, status: http.StatusOK}.do(t, env).Decode(t, &l)
				if got := flowIDs(l.Data); !slices.Equal(got, want) {
					t.Errorf("GET /v2/flows%s = %v, want %v", query, got, want)
				}
			}
			links := func(t *testing.T, query string, want ...string) {
				t.Helper()
				var l payouts.List[payouts.PayoutLink]
				call{method: "GET", path: "/v2/payout-links" + query, status: http.StatusOK}.do(t, env).Decode(t, &l)
				var got []string
				for _, link := range l.Data {
					got = append(got, link.ID)
				}
				if !slices.Equal(got, want) {
					t.Errorf("GET /v2/payout-links%s = %v, want %v", query, got, want)
				}
			}
			t.Run("flows of a user", func(t *testing.T) { flows(t, "?user_id="+w.user.ID, newer.ID, hers.ID) })
			t.Run("flows of a user, next page", func(t *testing.T) { flows(t, "?user_id="+w.user.ID+"&starting_after="+newer.ID, hers.ID) })
			t.Run("flows of another app's user", func(t *testing.T) { flows(t, "?user_id="+w.otherUser.ID) })
			t.Run("links of an amount", func(t *testing.T) { links(t, "?amount=500", fiveAgain.ID, five.ID) })
			t.Run("links of an amount and a status", func(t *testing.T) { links(t, "?amount=500&status=canceled") })

			var calls []call
			for _, v := range []string{"abc", "0", "-500", "5.00", "1000000000001"} {
				calls = append(calls, call{name: "amount " + v, method: "GET", path: "/v2/payout-links?amount=" + v,
					status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "amount"})
			}
			calls = append(calls, call{name: "user_id not an id", method: "GET", path: "/v2/flows?user_id=zoe",
				status: http.StatusBadRequest, code: payouts.EInvalidInput, field: "user_id"})
			runCalls(t, env, calls)
		})
	}
}
