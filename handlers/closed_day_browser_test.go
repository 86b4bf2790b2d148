package handlers_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserClosedDayStaysPut: in Chromium, a manager reads Mar 2's money on the Statement,
// Transfers, Transactions and the Overview's chart, at 23:00 that day and again on Mar 3 after a
// payout link made on Mar 2 is claimed: each page's figures are the same both times, Transfers
// and Transactions agree with the Statement (all three sum the lines posted that day), and the
// Transfers export rebuilds the page's In and Out from its money_in and money_out, a failed
// payout the app funded included (its money went out and came back: in and out, not nothing).
// On the public API, which has no statements, summaries or stats, each page says so and claims
// no day's figure, and the export leaves money it cannot know empty rather than guessed.
func TestBrowserClosedDayStaysPut(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			browserClosedDayStaysPut(t, newHarnessWith(t, harnessSetup{sharedClock: true, public: b.public}), b.public)
		})
	}
}

// dayFigures is what the dashboard's pages say of one day's money.
type dayFigures struct {
	statementIn, statementOut       string
	transfersIn, transfersOut       string
	transactionsIn, transactionsOut string
	chart                           string // the Overview's bar for the day
	exportIn, exportOut             payouts.Money
	failedIn, failedOut             string // the failed funded payout's row of the export
}

func browserClosedDayStaysPut(t *testing.T, h *harness, public bool) {
	// Late on Mar 2, so that the session the manager opens at 23:45 is still alive after midnight.
	h.clock.Set(time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC))
	u := h.fundedUser("Ola", "Day", 50_00)
	if _, err := h.payouts.CreatePayout(t.Context(), payouts.CreatePayoutRequest{UserID: u.ID, Amount: 20_00,
		Platform: payouts.PlatformDefault}); err != nil {
		t.Fatal(err)
	}
	h.deposit(100_00)
	_, failed := h.refusedPayout("Bea", true, false)
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 30_00, Payee: &payouts.Payee{Email: u.Email}})

	h.clock.Set(time.Date(2026, 3, 2, 23, 45, 0, 0, time.UTC))
	tab, origin := h.browserSignedIn(dashstore.RoleManager)
	day := "from=2026-03-02&to=2026-03-02"
	read := func() dayFigures {
		t.Helper()
		var f dayFigures
		browser.Run(t, tab, chromedp.Navigate(origin+"/transfers?"+day), chromedp.WaitVisible(chromedp.CSS(`#transfers-body`)))
		rows, col := exportOf(t, tab)
		if len(rows) == 0 {
			t.Fatal("the export of Mar 2's transfers is empty")
		}
		for _, r := range rows {
			if r[col["id"]] == failed.ID {
				f.failedIn, f.failedOut = r[col["money_in"]], r[col["money_out"]]
			}
			for _, c := range []struct {
				name string
				sum  *payouts.Money
			}{{"money_in", &f.exportIn}, {"money_out", &f.exportOut}} {
				if r[col[c.name]] == "" {
					continue
				}
				m, err := payouts.ParseDollars(r[col[c.name]])
				if err != nil {
					t.Fatalf("export row %s's %s: %v", r[col["id"]], c.name, err)
				}
				*c.sum += m
			}
		}
		if public {
			wantTexts(t, "Transfers", textOf(t, tab, `#transfers-body`), "The count and totals of the filtered")
			browser.Run(t, tab, chromedp.Navigate(origin+"/transactions?"+day), chromedp.WaitVisible(chromedp.CSS(`#main`)))
			wantTexts(t, "Transactions", textOf(t, tab, `#main`), "The count and totals of the filtered")
			browser.Run(t, tab, chromedp.Navigate(origin+"/statement?"+day), chromedp.WaitVisible(chromedp.CSS(`[data-testid="api-note"]`)))
			wantTexts(t, "Statement", textOf(t, tab, `[data-testid="api-note"]`), "Statements: not available on this API")
			return f
		}
		f.transfersIn, f.transfersOut = textOf(t, tab, `[data-testid="summary-in"]`), textOf(t, tab, `[data-testid="summary-out"]`)
		browser.Run(t, tab, chromedp.Navigate(origin+"/transactions?"+day), chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary-in"]`)))
		f.transactionsIn, f.transactionsOut = textOf(t, tab, `[data-testid="summary-in"]`), textOf(t, tab, `[data-testid="summary-out"]`)
		browser.Run(t, tab, chromedp.Navigate(origin+"/statement?"+day), chromedp.WaitVisible(chromedp.CSS(`[data-testid="statement-in"]`)))
		f.statementIn, f.statementOut = textOf(t, tab, `[data-testid="statement-in"]`), textOf(t, tab, `[data-testid="statement-out"]`)
		browser.Run(t, tab, chromedp.Navigate(origin+"/overview"), chromedp.WaitVisible(chromedp.CSS(`#volume rect[data-date]`)))
		bar, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('#volume rect[data-date="2026-03-02"]')?.textContent ?? ''`))
		if err != nil {
			t.Fatal(err)
		}
		f.chart = bar
		return f
	}

	before := read()
	browser.Screenshot(t, tab, "before-claim")
	h.clock.Set(time.Date(2026, 3, 3, 0, 5, 0, 0, time.UTC))
	if _, err := h.env.Service.ClaimPayoutLink(t.Context(), link.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	after := read()
	browser.Screenshot(t, tab, "after-claim")

	if before != after {
		t.Errorf("Mar 2's figures moved after a claim on Mar 3:\nbefore %+v\nafter  %+v", before, after)
	}
	// The public API's pages claim no figure, and its export leaves money_in and money_out empty.
	want := dayFigures{}
	if !public {
		// In: $60.00 and $100.00 deposited, and the failed payout's $20.00 back. Out: $50.00 to Ola's
		// wallet, the failed payout's $20.00 and the fee the app paid for it. The Overview charts
		// payouts: Ola's $20.00, paid from her wallet.
		want = dayFigures{statementIn: "$180.00", statementOut: "$70.25", transfersIn: "$180.00", transfersOut: "$70.25",
			transactionsIn: "$180.00", transactionsOut: "$70.25", chart: "Mar 2: $20.00 in 1 payout",
			exportIn: 180_00, exportOut: 70_25, failedIn: "20.00", failedOut: "20.00"}
	}
	if after != want {
		t.Errorf("Mar 2's figures are %+v, want %+v", after, want)
	}
	if public {
		return
	}
	// The claim's money is Mar 3's: the day it posted.
	browser.Run(t, tab, chromedp.Navigate(origin+"/statement?from=2026-03-03&to=2026-03-03"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="statement-out"]`)))
	if got := textOf(t, tab, `[data-testid="statement-out"]`); got != "$30.00" {
		t.Errorf("Mar 3's Out is %s, want the claimed link's $30.00", got)
	}
}
