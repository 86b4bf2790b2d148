package handlers_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// Every day the service has posted anything on, in a period both ends of which the tests name.
const allDays = "from=2000-01-01&to=2100-12-31"

// statementFigure is the money a statement page shows under a data-testid.
func statementFigure(t *testing.T, body, testid string) string {
	t.Helper()
	m := regexp.MustCompile(`data-testid="` + testid + `"><span class="[^"]*">([^<]+)<`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s on the page\n%.3000s", testid, body)
	}
	return m[1]
}

func TestStatementPageAndExport(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public})
			manager, _ := h.signedIn(dashstore.RoleManager)
			if b.public {
				// Statements are our extension: the page and its export say so in one line,
				// and show no statement.
				for _, path := range []string{"/statement", "/statement/export?" + allDays} {
					res := manager.get(path)
					wantStatus(t, res, http.StatusOK)
					wantBody(t, res, apiNote, "Statements: not available on this API")
					if strings.Contains(res.body, "statement-opening") || strings.HasPrefix(res.body, "\ufeff") {
						t.Errorf("GET %s shows a statement on a service without them", path)
					}
				}
				return
			}
			testStatement(t, h, manager)
		})
	}
}

func testStatement(t *testing.T, h *harness, manager *agent) {
	ctx := t.Context()
	ada := h.fundedUser("Ada", "Lovelace", 40_00)
	if _, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 5_00, Platform: payouts.PlatformDefault}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: 2_50}); err != nil {
		t.Fatal(err)
	}
	app, err := h.payouts.GetApp(ctx, h.env.AppID)
	if err != nil {
		t.Fatal(err)
	}
	ada, err = h.payouts.GetUser(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	appStatement, err := h.payouts.Statement(ctx, payouts.StatementRequest{From: mustDay(t, "2000-01-01"), To: mustDay(t, "2101-01-01")})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("page", func(t *testing.T) {
		for _, c := range []struct {
			name, query  string
			wallet       string
			closing      payouts.Money
			movements    int
			extra        []string
			asOfExpected string
		}{
			// The breakdown by type is the lists' summary's table, counting movements.
			{"the app's wallet", allDays, "The app's wallet", app.Wallet.Amount, len(appStatement.Movements),
				[]string{`data-testid="by-type"`, `<th scope="col" class="py-1 pr-4 text-right font-medium">Movements</th>`}, ""},
			{"a payee's wallet from the user page's link", "user_id=" + ada.ID + "&" + allDays, "Wallet of", ada.Wallet.Amount, 0,
				[]string{`href="/users/` + ada.ID + `"`, `value="` + ada.ID + `"`}, ""},
			{"a balance as of a day before anything", allDays + "&as_of=2001-06-30", "The app's wallet", app.Wallet.Amount, -1, nil, "$0.00"},
			{"a balance as of a day after everything", allDays + "&as_of=2100-01-01", "The app's wallet", app.Wallet.Amount, -1, nil, app.Wallet.Amount.String()},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := manager.get("/statement?" + c.query)
				wantStatus(t, res, http.StatusOK)
				wantBody(t, res, c.wallet, "The closing balance agrees with the ledger", `data-testid="statement-definition"`,
					`href="/statement/export?`)
				wantBody(t, res, c.extra...)
				if got := statementFigure(t, res.body, "statement-opening"); got != "$0.00" {
					t.Errorf("opening %s, want $0.00", got)
				}
				if got := statementFigure(t, res.body, "statement-closing"); got != c.closing.String() {
					t.Errorf("closing %s, want the wallet's %s", got, c.closing)
				}
				if c.movements > 0 {
					if got := strings.Count(res.body, `data-testid="movement-amount"`); got != c.movements {
						t.Errorf("%d movements, want %d", got, c.movements)
					}
				}
				if c.asOfExpected != "" {
					if got := statementFigure(t, res.body, "balance-as-of"); got != c.asOfExpected {
						t.Errorf("balance as of %s, want %s", got, c.asOfExpected)
					}
				} else if strings.Contains(res.body, `data-testid="balance-as-of"`) {
					t.Error("a balance as of a day nobody asked for")
				}
			})
		}
	})

	t.Run("periods", func(t *testing.T) {
		// The dashboard's clock stands in March 2026.
		for _, c := range []struct{ query, first, last string }{
			{"", "2026-03-01", "2026-03-31"},
			{"period=this-month&from=2020-01-01&to=2020-01-02", "2026-03-01", "2026-03-31"},
			{"period=last-month", "2026-02-01", "2026-02-28"},
			{"from=2026-01-15&to=2026-01-15", "2026-01-15", "2026-01-15"},
		} {
			res := manager.get("/statement?" + c.query)
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, `value="`+c.first+`"`, `value="`+c.last+`"`, c.first+" to "+c.last+", both included (UTC)")
		}
		frag := manager.htmxGet("/statement?period=last-month")
		wantBody(t, frag, `id="statement-body"`)
		if strings.Contains(frag.body, "<!doctype html>") {
			t.Error("the fragment is a whole page")
		}
	})

	t.Run("choices it cannot use", func(t *testing.T) {
		for _, c := range []struct{ query, field, problem string }{
			{"from=2026-13-01&to=2026-12-31", "field-from", "enter a date like 2026-03-31"},
			{"from=2026-03-02&to=2026-03-01", "field-to", "choose a day on or after the first day"},
			{"from=2026-03-02", "field-to", "choose a day"},
			{"user=nobody-at-all&" + allDays, "statement-user", "no user matches"},
			{"user_id=" + strings.Repeat("0", 8) + "-0000-4000-8000-000000000000&" + allDays, "statement-user", "no user has this id"},
			{allDays + "&as_of=yesterday", "field-as_of", "enter a date like"},
		} {
			res := manager.get("/statement?" + c.query)
			wantStatus(t, res, http.StatusUnprocessableEntity)
			wantBody(t, res, `id="`+c.field+`-error"`, `data-testid="statement-problem"`)
			if !strings.Contains(strings.ToLower(res.body), c.problem) {
				t.Errorf("%s: no %q on the page", c.query, c.problem)
			}
			if strings.Contains(res.body, `data-testid="statement-opening"`) {
				t.Errorf("%s: a statement beside the problem", c.query)
			}
			if res := manager.get("/statement/export?" + c.query); res.StatusCode != http.StatusBadRequest {
				t.Errorf("export of %s: status %d, want 400", c.query, res.StatusCode)
			}
		}
	})

	t.Run("export", func(t *testing.T) {
		res := manager.get("/statement/export?" + allDays)
		wantStatus(t, res, http.StatusOK)
		rows := readCSV(t, res.body)
		col := csvColumns(t, rows[0])
		if len(rows) != len(appStatement.Movements)+3 {
			t.Fatalf("%d rows, want a header, the opening, %d movements and the closing", len(rows), len(appStatement.Movements))
		}
		first, last := rows[1], rows[len(rows)-1]
		if first[col["row"]] != "opening" || first[col["balance"]] != "0.00" || last[col["row"]] != "closing" ||
			last[col["balance"]] != app.Wallet.Amount.Decimal() {
			t.Errorf("opening %v, closing %v; want 0.00 and the wallet's %s", first, last, app.Wallet.Amount.Decimal())
		}
		// The signed amounts sum, as a spreadsheet sums them, to the closing less the opening,
		// and each balance is the one before it plus the row's amount.
		var sum, balance payouts.Money
		for i, row := range rows[2 : len(rows)-1] {
			m := appStatement.Movements[i]
			signed, err := payouts.ParseDollars(row[col["signed_amount"]])
			if err != nil {
				t.Fatalf("row %d signed amount %q: %v", i+2, row[col["signed_amount"]], err)
			}
			unsigned, _ := payouts.ParseDollars(row[col["amount"]])
			after, _ := payouts.ParseDollars(row[col["balance"]])
			wantDirection := map[bool]string{true: "in", false: "out"}[signed > 0]
			if signed != m.Amount || unsigned != max(signed, -signed) || row[col["direction"]] != wantDirection ||
				after != balance+signed || row[col["transfer_id"]] != m.TransferID || row[col["type"]] == "" {
				t.Errorf("row %d %v, want the movement %+v after %s", i+2, row, m, balance)
			}
			sum += signed
			balance = after
		}
		if sum != app.Wallet.Amount {
			t.Errorf("the signed amounts sum to %s, want the closing less the opening, %s", sum, app.Wallet.Amount)
		}
		entries := h.auditActions("app", h.env.AppID)
		if len(entries) == 0 || entries[0].Action != "statement.export" || !strings.Contains(entries[0].Detail, "2000-01-01 to 2100-12-31") {
			t.Errorf("audit of the export: %+v", entries)
		}

		mine := readCSV(t, manager.get("/statement/export?user_id="+ada.ID+"&"+allDays).body)
		if got := mine[len(mine)-1]; got[col["balance"]] != ada.Wallet.Amount.Decimal() || got[col["user_id"]] != ada.ID ||
			got[col["payee_name"]] != "Ada Lovelace" {
			t.Errorf("the payee's closing row %v, want %s of Ada's", got, ada.Wallet.Amount.Decimal())
		}
	})

	t.Run("roles", func(t *testing.T) {
		ops, _ := h.signedIn(dashstore.RoleOperations)
		support, _ := h.signedIn(dashstore.RoleSupport)
		page := ops.get("/statement?" + allDays)
		wantStatus(t, page, http.StatusOK)
		if strings.Contains(page.body, "/statement/export") {
			t.Error("operations, who may not export, are offered the export")
		}
		wantStatus(t, ops.get("/statement/export?"+allDays), http.StatusForbidden)
		for _, path := range []string{"/statement", "/statement?user_id=" + ada.ID, "/statement/export"} {
			wantStatus(t, support.get(path), http.StatusForbidden)
		}
		if strings.Contains(support.get("/users/"+ada.ID).body, `href="/statement`) {
			t.Error("support is shown a statement link they may not follow")
		}
		wantBody(t, manager.get("/users/"+ada.ID), `href="/statement?user_id=`+ada.ID+`"`)
	})
}

func mustDay(t *testing.T, day string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
