package api_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestStatementRoute checks GET /v2/statement: every bad parameter is a 400 naming it, another
// app's user is not found, and an app and its user each see their own wallet only.
func TestStatementRoute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	period := "from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z"
	var calls []call
	for _, q := range []struct{ name, query, field string }{
		{"no from", "to=2026-03-01T00:00:00Z", payouts.QueryStatementFrom},
		{"no to", "from=2026-03-01T00:00:00Z", payouts.QueryStatementTo},
		{"from a date only", "from=2026-03-01&to=2026-04-01T00:00:00Z", payouts.QueryStatementFrom},
		{"to not after from", "from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z", payouts.QueryStatementTo},
		{"user_id not an id", period + "&user_id=nope", payouts.QueryStatementUser},
	} {
		calls = append(calls, call{name: q.name, method: "GET", path: "/v2/statement?" + q.query,
			status: http.StatusBadRequest, code: payouts.EInvalidInput, field: q.field})
	}
	calls = append(calls, call{name: "another app's user", method: "GET", path: "/v2/statement?" + period + "&user_id=" + w.otherUser.ID,
		status: http.StatusNotFound, code: payouts.ENotFound})
	runCalls(t, w.env, calls)

	// Each app: a deposit of $100,000 in, $50 to its user.
	app := servicetest.Want[payouts.Statement](t, w.env.Do(t, "GET", "/v2/statement?"+period, nil), "statement", http.StatusOK)
	if app.OpeningBalance != 0 || app.ClosingBalance != 99_950_00 || app.MoneyIn != 100_000_00 || app.MoneyOut != 50_00 ||
		len(app.Movements) != 2 || app.UserID != nil {
		t.Errorf("the app's statement %+v", app)
	}
	user := servicetest.Want[payouts.Statement](t, w.env.Do(t, "GET", "/v2/statement?"+period+"&user_id="+url.QueryEscape(w.user.ID), nil),
		"statement", http.StatusOK)
	if user.ClosingBalance != 50_00 || len(user.Movements) != 1 || user.Movements[0].Amount != 50_00 || *user.UserID != w.user.ID {
		t.Errorf("the user's statement %+v", user)
	}
}
