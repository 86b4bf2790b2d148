package main

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// A manager reconciles the month: the app's statement, the transfers summary and the
// transactions summary of the same days agree to the cent (what came in, what went out, and the
// closing less the opening), and each page says why, by the one definition of in and out. The
// month holds a deposit, money moved to a payee and some of it back, a payout from a payee's
// wallet and one funded by the app, both with fees the app pays, and a funded payout the rail
// rejects, whose funding comes back and whose fee is released. Statements and the lists' count
// and totals are our service's extensions: on the public API the manager finds each page saying
// so instead.
func TestBrowserManagerReconcilesMonth(t *testing.T) {
	for _, b := range journeyBackends {
		t.Run(b.name, func(t *testing.T) { managerReconcilesMonth(t, startJourneyOn(t, b.public)) })
	}
}

func managerReconcilesMonth(t *testing.T, j *journey) {
	ctx := context.Background()
	// The scene is set through the API: a manager reads money, never moves it.
	if _, err := j.api.Deposit(ctx, j.appID, payouts.DepositRequest{Amount: 1000_00}); err != nil {
		t.Fatal(err)
	}
	payee := func(first, email string) *payouts.User {
		u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: first, LastName: "Month", Email: email,
			CountryCode: "1", PhoneNumber: "415555020" + string(rune('0'+len(first)))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.api.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
			Email: email, IsDefault: true}); err != nil {
			t.Fatal(err)
		}
		return u
	}
	// The sandbox rail rejects a PayPal address containing "fail" at submission.
	ada, bob, fay := payee("Ada", "ada@example.com"), payee("Bob", "bob@example.com"), payee("Fay", "fail.fay@example.com")
	for _, amount := range []int64{-200_00, 12_34} { // to Ada, and some of it back
		if _, err := j.api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: amount}); err != nil {
			t.Fatal(err)
		}
	}
	pay := func(u *payouts.User, amount int64, fund bool) *payouts.Transfer {
		p, err := j.api.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: u.ID, Amount: amount, Platform: payouts.PlatformDefault,
			Fund: fund, PayoutFeeParty: payouts.FeePartyPlatform})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	settled, funded, rejected := pay(ada, 50_00, false), pay(bob, 75_00, true), pay(fay, 30_00, true)
	// Every payout ends before the books are read: pending lines count once they post.
	for _, p := range []*payouts.Transfer{settled, funded, rejected} {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			got, err := j.api.GetTransfer(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == payouts.TransferCompleted || got.Status == payouts.TransferFailed {
				if want := map[string]payouts.TransferStatus{rejected.ID: payouts.TransferFailed}[p.ID]; want != "" && got.Status != want {
					t.Fatalf("setup: the payout to %q is %s", "fail.fay@example.com", got.Status)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("setup: payout %s still %s after a minute", p.ID, got.Status)
			}
		}
	}
	app, err := j.api.GetApp(ctx, j.appID)
	if err != nil {
		t.Fatal(err)
	}

	j.signIn(j.base, dashstore.RoleManager)
	if j.public {
		j.run(chromedp.Click(chromedp.Search(`(//nav[@aria-label="Main"])[1]//a[normalize-space()="Statement"]`)))
		j.saysNotAvailable("Statements")
		for _, list := range []string{"transfers", "transactions"} {
			j.run(chromedp.Navigate(j.base + "/" + list + "?from=" + time.Now().UTC().Format("2006-01") + "-01"))
			j.saysNotAvailable("The count and totals of the filtered " + list)
		}
		j.noConsoleErrors()
		return
	}
	// The body the click swaps in (outerHTML) lacks the mark put on the one before it, so the
	// period is read from the answer, in one evaluation, never from the page mid-swap.
	j.run(
		chromedp.Click(chromedp.Search(`(//nav[@aria-label="Main"])[1]//a[normalize-space()="Statement"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#statement-body`)),
		chromedp.Poll[chromedp.Void](`(document.querySelector('#statement-body').dataset.before = 'swap') === 'swap'`),
		chromedp.Click(chromedp.Search(`//button[normalize-space()="This month"]`)),
	)
	period, err := chromedp.Run(j.tab, chromedp.Poll[[]string](`(() => {
		const body = document.querySelector('#statement-body');
		if (!body || body.dataset.before || !body.querySelector('[data-testid="statement-closing"]')) return null;
		return ['#field-from', '#field-to', 'input[name="tz"]'].map(sel => body.querySelector(sel).value);
	})()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		browser.Screenshot(t, j.tab, "this-month")
		t.Fatalf("the statement of this month: %v", err)
	}
	first, last, zone := period[0], period[1], period[2]
	now := time.Now()
	if loc, err := time.LoadLocation(zone); err == nil {
		now = now.In(loc)
	}
	if first != now.Format("2006-01")+"-01" || !strings.HasPrefix(last, now.Format("2006-01")) {
		t.Fatalf("this month in %q is %s to %s", zone, first, last)
	}
	money := func(testid string) payouts.Money {
		t.Helper()
		m, err := payouts.ParseDollars(j.text(`[data-testid="` + testid + `"]`))
		if err != nil {
			t.Fatalf("%s: %v", testid, err)
		}
		return m
	}
	opening, in, out, closing := money("statement-opening"), money("statement-in"), money("statement-out"), money("statement-closing")
	if opening != 0 || closing != app.Wallet.Amount || closing-opening != in-out {
		t.Errorf("statement: opening %s, in %s, out %s, closing %s; want 0, closing at the wallet's %s, and in less out the difference",
			opening, in, out, closing, app.Wallet.Amount)
	}
	if agrees := j.text(`[data-testid="statement-agrees"]`); !strings.HasPrefix(agrees, "The closing balance agrees with the ledger") {
		t.Errorf("the statement says %q", agrees)
	}
	if why := j.text(`[data-testid="statement-definition"]`); !strings.Contains(why, "transfers and transactions summaries") ||
		!strings.Contains(why, "released fee counts nowhere") {
		t.Errorf("the statement does not say what it counts: %q", why)
	}
	// The rejected payout's fee was released: it is on no line of the statement.
	if n, err := chromedp.Run(j.tab, chromedp.Evaluate[int](`document.querySelectorAll('tr[data-transfer="`+rejected.ID+`"]').length`)); err != nil || n != 2 {
		t.Errorf("the rejected payout has %d lines on the statement (%v), want its funding out and back only", n, err)
	}
	browser.Axe(t, j.tab)

	days := url.Values{"from": {first}, "to": {last}, "tz": {zone}}.Encode()
	for _, list := range []string{"transfers", "transactions"} {
		j.run(
			chromedp.Navigate(j.base+"/"+list+"?"+days),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="summary-out"]`)),
		)
		if got, got2 := money("summary-in"), money("summary-out"); got != in || got2 != out {
			t.Errorf("%s of %s to %s: in %s, out %s; the statement: in %s, out %s", list, first, last, got, got2, in, out)
		}
		if why := j.text(`[data-testid="summary-definition"]`); !strings.Contains(why, "statement") {
			t.Errorf("the %s summary does not say how it meets the statement: %q", list, why)
		}
	}
	// The statement holds on a phone and in the dark theme too: axe finds nothing, and the page
	// never scrolls sideways (its tables scroll in their card).
	for _, v := range []struct {
		width, height int64
		scheme        string
	}{{390, 844, "light"}, {1440, 900, "dark"}} {
		j.run(
			chromedp.EmulateViewport(v.width, v.height),
			browser.ColorScheme(v.scheme),
			chromedp.Navigate(j.base+"/statement?"+days),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="statement-closing"]`)),
		)
		browser.Axe(t, j.tab)
		if width, err := chromedp.Run(j.tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); err != nil || width > v.width {
			t.Errorf("at %d px (%s) the statement is %d px wide (%v)", v.width, v.scheme, width, err)
		}
	}
	j.noConsoleErrors()
}
