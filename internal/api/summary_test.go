package api_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestListRangesAndSummaries checks the creation and amount filters of the transfer and
// transaction lists and their summaries on both engines: what a summary answers for another
// app's rows, and a 400 naming the parameter for every bad value, never a 500.
func TestListRangesAndSummaries(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			w := newWorld(t, engine.opts()...)
			for _, path := range []string{"/v2/transfers", "/v2/transfers/summary", "/v2/transactions", "/v2/transactions/summary"} {
				var calls []call
				for _, q := range []struct{ name, query, field string }{
					{"created_gte not a time", "created_gte=yesterday", payouts.QueryCreatedFrom},
					{"created_lt a date only", "created_lt=2026-03-01", payouts.QueryCreatedTo},
					{"created_lt before created_gte", "created_gte=2026-03-02T00:00:00Z&created_lt=2026-03-01T00:00:00%2B01:00", payouts.QueryCreatedTo},
					{"amount_gte negative", "amount_gte=-1", payouts.QueryAmountMin},
					{"amount_lte dollars", "amount_lte=1.50", payouts.QueryAmountMax},
					{"amount_lte below amount_gte", "amount_gte=500&amount_lte=499", payouts.QueryAmountMax},
					{"amount_gte too large", "amount_gte=99999999999999999999", payouts.QueryAmountMin},
					{"user_id not an id", "user_id=nope", "user_id"},
				} {
					calls = append(calls, call{name: path + " " + q.name, method: "GET", path: path + "?" + q.query,
						status: http.StatusBadRequest, code: payouts.EInvalidInput, field: q.field})
				}
				runCalls(t, w.env, calls)
			}
			for _, path := range []string{"/v2/transfers/summary", "/v2/transactions/summary"} {
				t.Run(path+" of the app's rows only", func(t *testing.T) {
					// Each app: a deposit of $100,000 in, a transfer of $50 out.
					sum := servicetest.Want[payouts.Summary](t, w.env.Do(t, "GET", path, nil), "summary", http.StatusOK)
					if !reflect.DeepEqual(sum, payouts.Summary{Count: 2, MoneyIn: 100_000_00, MoneyOut: 50_00, Exact: true,
						ByType: []payouts.TypeTotal{{Type: "refill", Count: 1, MoneyIn: 100_000_00}, {Type: "balance", Count: 1, MoneyOut: 50_00}}}) {
						t.Errorf("summary %+v", sum)
					}
					sum = servicetest.Want[payouts.Summary](t, w.env.Do(t, "GET", path+"?user_id="+w.otherUser.ID, nil), "summary", http.StatusOK)
					if !reflect.DeepEqual(sum, payouts.Summary{Exact: true, ByType: []payouts.TypeTotal{}}) {
						t.Errorf("summary of another app's user %+v", sum)
					}
				})
			}
		})
	}
}
