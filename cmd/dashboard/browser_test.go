package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// The journey of the issue, in a real headless Chromium, against the embedded service and against
// the public API: an admin adds an operations and a support operator; operations creates a user,
// adds an ACH method, moves $25.00 to the user and sees the wallet read $25.00; support finds no
// way to move money. No page may log a console error (a CSP violation would).
func TestBrowserOperationsAndSupport(t *testing.T) {
	for _, b := range journeyBackends {
		t.Run(b.name, func(t *testing.T) { operationsAndSupport(t, startJourneyOn(t, b.public)) })
	}
}

func operationsAndSupport(t *testing.T, j *journey) {
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	signIn := func(email, password string) {
		t.Helper()
		j.signInAs(j.base, email, password)
	}
	signOut := func() {
		t.Helper()
		j.run(
			chromedp.Click(css(`form[action="/logout"] button`)),
			chromedp.WaitVisible(css("#login-form")),
		)
	}
	addOperator := func(name, email, role string) string {
		t.Helper()
		j.run(
			chromedp.Navigate(j.base+"/operators"),
			chromedp.WaitVisible(css("#field-name")),
			chromedp.SendKeys(css("#field-name"), name),
			chromedp.SendKeys(css("#field-email"), email),
			chromedp.SetValue(css("#field-role"), role),
			chromedp.Click(css(`form[action="/operators"] button[type="submit"]`)),
			chromedp.WaitVisible(css("code")),
		)
		return j.text("code")
	}

	signIn(j.operator(dashstore.RoleAdmin))
	opsPassword := addOperator("Olivia Ops", "ops@example.com", "operations")
	supportPassword := addOperator("Sam Support", "support@example.com", "support")
	signOut()

	signIn("ops@example.com", opsPassword)
	// The app's wallet needs money before any can move to a user.
	j.run(
		chromedp.Navigate(j.base+"/app"),
		chromedp.WaitVisible(css("#deposit")),
		chromedp.SendKeys(css("#deposit #field-amount"), "100.00"),
		chromedp.Click(css(`#deposit button[type="submit"]`)),
		flash("Deposited $100.00."),
	)

	j.run(
		chromedp.Navigate(j.base+"/users/new"),
		chromedp.WaitVisible(css("#field-first_name")),
		chromedp.SendKeys(css("#field-first_name"), "Jane"),
		chromedp.SendKeys(css("#field-last_name"), "Payee"),
		chromedp.SendKeys(css("#field-email"), "jane@example.com"),
		chromedp.SendKeys(css("#field-phone_number"), "4155550142"),
		chromedp.Click(css(`form[action="/users"] button[type="submit"]`)),
		chromedp.WaitVisible(css("#wallet")),
	)
	userURL, err := chromedp.Run(j.tab, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	j.run(
		chromedp.Click(css(`#payout-methods a[href$="/payout-methods/new"]`)),
		chromedp.WaitVisible(css("#field-routing_number")),
		// Leaving the field asks the server (htmx) to echo the ABA checksum.
		chromedp.SendKeys(css("#field-routing_number"), "021000021"),
		chromedp.Click(css("#field-account_number")),
		// The field's static hint is visible before the server's answer replaces it: wait for
		// the answer itself.
		chromedp.WaitVisible(chromedp.Search(`//*[@id="field-routing_number-hint"][contains(., "routing number (ABA")]`)),
	)
	if hint := j.text("#field-routing_number-hint"); !strings.Contains(hint, "Valid routing number") {
		t.Errorf("routing number hint = %q", hint)
	}
	j.run(
		chromedp.SendKeys(css("#field-account_number"), "123456789"),
		chromedp.Click(css(`#payout-method-form form button[type="submit"]`)),
		flash("Saved Bank account (ACH) •••• 6789."),
	)
	if m := j.text("#payout-methods li"); !strings.Contains(m, "Bank account (ACH)") || !strings.Contains(m, "6789") || strings.Contains(m, "123456789") {
		t.Errorf("payout method shown as %q", m)
	}

	j.run(
		chromedp.SendKeys(css("#move-money #field-amount"), "25.00"),
		chromedp.Click(css(`#move-money button[type="submit"]`)),
		flash("Moved $25.00 to the user."),
	)
	if got := j.text(`[data-testid="wallet-amount"]`); got != "$25.00" {
		browser.Screenshot(t, j.tab, "wallet")
		t.Fatalf("the wallet reads %q, want $25.00", got)
	}
	signOut()

	signIn("support@example.com", supportPassword)
	j.run(chromedp.Navigate(userURL), chromedp.WaitVisible(css("#wallet")))
	if got := j.text(`[data-testid="wallet-amount"]`); got != "$25.00" {
		t.Errorf("support sees the wallet as %q", got)
	}
	noWay, err := chromedp.Run(j.tab, chromedp.Evaluate[bool](`document.querySelector('#move-money') === null &&
		document.querySelector('form[action*="/transfers"]') === null &&
		!document.body.innerText.includes('Move money') &&
		document.querySelector('nav a[href="/app"]') === null`))
	if err != nil || !noWay {
		browser.Screenshot(t, j.tab, "support")
		t.Errorf("support has a way to move money (%v)", err)
	}
	signOut()
	j.noConsoleErrors()
}
