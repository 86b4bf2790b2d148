package handlers_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// TestReconciliationFilters narrows the transfers and transactions pages by payee, dates and
// amounts, and checks the summary line against the service's own figures.
func TestReconciliationFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	manager, _ := h.signedIn(dashstore.RoleManager)
	zoe := h.fundedUser("Zoë", "García-López", 30_00) // a deposit of $40, $30 to Zoë
	bob := h.fundedUser("Bob", "Other", 5_00)
	if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: zoe.ID, Amount: -12_00}); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)

	for _, tc := range []struct {
		name, query string
		filter      payouts.TransferFilter
		rows        string // the summary's "1–N" part
		count       string
	}{
		{"everything", "", payouts.TransferFilter{}, "1–5", "5"},
		{"Zoë by id", "user_id=" + zoe.ID, payouts.TransferFilter{UserID: zoe.ID}, "1–2", "2"},
		{"Zoë by exact email", "user=" + url.QueryEscape(strings.ToUpper(zoe.Email)), payouts.TransferFilter{UserID: zoe.ID}, "1–2", "2"},
		{"$10 to $20", "min=10&max=20", payouts.TransferFilter{Range: payouts.Range{AmountMin: 10_00, AmountMax: 20_00}}, "1–2", "2"},
		{"Zoë $10 to $20 today", "user_id=" + zoe.ID + "&min=10&max=20.00&from=" + today + "&to=" + today + "&tz=UTC",
			payouts.TransferFilter{UserID: zoe.ID, Range: payouts.Range{AmountMin: 10_00, AmountMax: 20_00}}, "1–1", "1"},
		{"from tomorrow", "from=" + tomorrow, payouts.TransferFilter{Range: payouts.Range{CreatedFrom: time.Now().AddDate(0, 0, 2)}}, "", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := manager.get("/transfers?" + tc.query)
			wantStatus(t, res, http.StatusOK)
			sum, err := h.payouts.SummarizeTransfers(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			body := html.UnescapeString(res.body)
			wantBody(t, res, `data-testid="summary-count">`+tc.count+`<`,
				`data-testid="summary-in">`+sum.MoneyIn.String(), `data-testid="summary-out">`+sum.MoneyOut.String())
			if tc.rows != "" && !strings.Contains(body, `data-testid="summary-rows">`+tc.rows+`<`) {
				t.Errorf("the summary does not say rows %s", tc.rows)
			}
			if tc.count == "0" {
				wantBody(t, res, "No transfers match")
			}
		})
	}
	t.Run("rows name their payee", func(t *testing.T) {
		res := manager.get("/transfers?user_id=" + zoe.ID)
		body := html.UnescapeString(res.body)
		for _, want := range []string{"Zoë García-López", zoe.Email, `href="/users/` + zoe.ID + `"`} {
			if !strings.Contains(body, want) {
				t.Errorf("the list lacks %q", want)
			}
		}
		if strings.Contains(body, bob.Email) {
			t.Error("the list filtered to Zoë names Bob")
		}
		tx := manager.get("/transactions?user_id=" + zoe.ID + "&min=12&max=12")
		wantStatus(t, tx, http.StatusOK)
		wantBody(t, tx, `data-testid="summary-count">1<`, `data-testid="summary-out">$12.00`, "García-López")
	})
	t.Run("the export carries the filter", func(t *testing.T) {
		res := manager.get("/transfers?user_id=" + zoe.ID + "&min=10&from=" + today + "&tz=UTC")
		export := links(res, `href="(/transfers/export\?[^"]+)"`)
		if len(export) == 0 {
			t.Fatal("no export link")
		}
		u, _ := url.Parse(export[0])
		if q := u.Query(); q.Get("user_id") != zoe.ID || q.Get("min") != "10" || q.Get("from") != today {
			t.Errorf("export link %s", export[0])
		}
		csv := manager.get(export[0])
		wantStatus(t, csv, http.StatusOK)
		if n := strings.Count(csv.body, "\n"); n != 3 { // the header and Zoë's two transfers
			t.Errorf("the export has %d lines:\n%s", n, csv.body)
		}
	})
	t.Run("page size and position", func(t *testing.T) {
		for range 30 {
			h.deposit(1_00)
		}
		first := manager.get("/transfers?limit=25")
		wantBody(t, first, `data-testid="summary-rows">1–25<`, `data-testid="summary-count">35<`, `value="25" selected`)
		next := links(first, `href="([^"]*[?&]after=[^"]+)"`)
		if len(next) != 2 {
			t.Fatalf("%d Older links, want one above and one below the table", len(next))
		}
		second := manager.htmxGet(next[0])
		wantBody(t, second, `data-testid="summary-rows">26–35<`, `data-testid="summary-count">35<`)
		back := links(second, `href="([^"]*[?&]before=[^"]+)"`)
		if len(back) == 0 {
			t.Fatal("no Newer link")
		}
		wantBody(t, manager.get(back[0]), `data-testid="summary-rows">1–25<`)
	})
}

// TestReconciliationBadFilters sends values the filter cannot use: each re-renders the form
// with a message on its field (422), never a 500, and reads nothing; the export refuses them.
func TestReconciliationBadFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	for _, tc := range []struct{ name, query, field, message string }{
		{"from not a date", "from=31/03/2026", "from", "Enter a date like"},
		{"to before from", "from=2026-03-02&to=2026-03-01", "to", "on or after the first day"},
		{"min not an amount", "min=ten", "min", ""},
		{"min negative", "min=-5", "min", "without a sign"},
		{"max below min", "min=20&max=10", "max", "no smaller than the minimum"},
		{"user matching no one", "user=zoe", "user", "No user matches “zoe”"},
		{"user an unknown email", "user=nobody%40example.com", "user", "No user matches “nobody@example.com”"},
	} {
		for _, path := range []string{"/transfers", "/transactions"} {
			t.Run(path+" "+tc.name, func(t *testing.T) {
				res := manager.get(path + "?" + tc.query)
				wantStatus(t, res, http.StatusUnprocessableEntity)
				wantBody(t, res, `aria-invalid="true"`, tc.message, `role="search"`)
				if !strings.Contains(res.body, `id="field-`+tc.field+`"`) && tc.field != "user" {
					t.Errorf("no field %s", tc.field)
				}
				if strings.Contains(res.body, `data-testid="list-summary"`) {
					t.Error("a summary of a filter that could not be used")
				}
				wantStatus(t, manager.get(path+"/export?"+tc.query), http.StatusBadRequest)
			})
		}
	}
}

// TestReconciliationEmptyForm sends the filter forms with nothing filled in, as a browser does
// (every field empty, with the time zone and page size the form always carries): that is no
// filter, so an empty list says there is nothing yet, not that nothing matches.
func TestReconciliationEmptyForm(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	const empty = "user=&user_id=&from=&to=&min=&max=&tz=Europe%2FParis&limit=25"
	for _, tc := range []struct{ path, extra, want, wrong string }{
		{"/transfers", "&type=&status=", "No transfers yet", "No transfers match"},
		{"/transactions", "", "No transactions yet", "No transactions match"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := manager.get(tc.path + "?" + empty + tc.extra)
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, tc.want)
			if strings.Contains(res.body, tc.wrong) {
				t.Errorf("an empty filter form says %q", tc.wrong)
			}
		})
	}
}

// TestUserSuggestions answers the user box's typing, and refuses the lists' summaries and the
// suggestions to those who may not read them.
func TestUserSuggestions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	support, _ := h.signedIn(dashstore.RoleSupport)
	zoe := h.createUser("Zoë", "García-López")
	h.createUser("Bob", "Other")
	for _, typed := range []string{"garcía", zoe.Email, zoe.ID} {
		res := support.htmxGet("/users/suggest?user=" + url.QueryEscape(typed))
		wantStatus(t, res, http.StatusOK)
		body := html.UnescapeString(res.body)
		if !strings.Contains(body, `data-value="`+zoe.ID+`"`) || strings.Contains(body, "Bob") {
			t.Errorf("suggestions for %q: %s", typed, body)
		}
	}
	if res := support.htmxGet("/users/suggest?user=nobody"); strings.Contains(res.body, "data-value") {
		t.Errorf("suggestions for nobody: %s", res.body)
	}
	// Support may find users but not read transfers: no lists, so no summaries.
	wantStatus(t, support.get("/transfers"), http.StatusForbidden)
	wantStatus(t, support.get("/transactions?min=1"), http.StatusForbidden)
	if res := h.agent().get("/users/suggest?user=zo"); res.StatusCode == http.StatusOK {
		t.Errorf("signed out, suggestions answered %d", res.StatusCode)
	}
}
