package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testutil/browser"
)

// The journey of the issue, in a real headless Chromium against the real embedded service: an
// admin adds an operations and a support operator; operations creates a user, adds an ACH
// method, moves $25.00 to the user and sees the wallet read $25.00; support finds no way to
// move money. No page may log a console error (a CSP violation would).
func TestBrowserOperationsAndSupport(t *testing.T) {
	dir := t.TempDir()
	base, out, _ := start(t, []string{"--addr", "127.0.0.1:0", "--service-addr", "127.0.0.1:0",
		"--dashboard-db", filepath.Join(dir, "dashboard.db"), "--db", filepath.Join(dir, "disburse.db")}, nil)
	admin := regexp.MustCompile(`email:\s+(\S+)\n\s+password:\s+(\S+)`).FindStringSubmatch(out.String())
	if admin == nil {
		t.Fatalf("no login printed:\n%s", out)
	}
	ctx := browser.New(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	// flash waits for a flash message of the next page (a selector alone could still match the
	// page being left).
	flash := func(message string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.Search(`//*[@data-dismissable]/p[normalize-space()="` + message + `"]`))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			browser.Screenshot(t, ctx, "text")
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	signIn := func(email, password string) {
		t.Helper()
		browser.Run(t, ctx,
			chromedp.Navigate(base+"/login"),
			chromedp.WaitVisible(css("#login-form")),
			chromedp.SendKeys(css("#field-email"), email),
			chromedp.SendKeys(css("#field-password"), password),
			chromedp.Click(css(`#login-form button[type="submit"]`)),
			chromedp.WaitVisible(css(`nav[aria-label="Main"]`)),
		)
	}
	signOut := func() {
		t.Helper()
		browser.Run(t, ctx,
			chromedp.Click(css(`form[action="/logout"] button`)),
			chromedp.WaitVisible(css("#login-form")),
		)
	}
	addOperator := func(name, email, role string) string {
		t.Helper()
		browser.Run(t, ctx,
			chromedp.Navigate(base+"/operators"),
			chromedp.WaitVisible(css("#field-name")),
			chromedp.SendKeys(css("#field-name"), name),
			chromedp.SendKeys(css("#field-email"), email),
			chromedp.SetValue(css("#field-role"), role),
			chromedp.Click(css(`form[action="/operators"] button[type="submit"]`)),
			chromedp.WaitVisible(css("code")),
		)
		return text("code")
	}

	signIn(admin[1], admin[2])
	opsPassword := addOperator("Olivia Ops", "ops@example.com", "operations")
	supportPassword := addOperator("Sam Support", "support@example.com", "support")
	signOut()

	signIn("ops@example.com", opsPassword)
	// The app's wallet needs money before any can move to a user.
	browser.Run(t, ctx,
		chromedp.Navigate(base+"/app"),
		chromedp.WaitVisible(css("#deposit")),
		chromedp.SendKeys(css("#deposit #field-amount"), "100.00"),
		chromedp.Click(css(`#deposit button[type="submit"]`)),
		flash("Deposited $100.00."),
	)

	browser.Run(t, ctx,
		chromedp.Navigate(base+"/users/new"),
		chromedp.WaitVisible(css("#field-first_name")),
		chromedp.SendKeys(css("#field-first_name"), "Jane"),
		chromedp.SendKeys(css("#field-last_name"), "Payee"),
		chromedp.SendKeys(css("#field-email"), "jane@example.com"),
		chromedp.SendKeys(css("#field-phone_number"), "5550142"),
		chromedp.Click(css(`form[action="/users"] button[type="submit"]`)),
		chromedp.WaitVisible(css("#wallet")),
	)
	userURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	browser.Run(t, ctx,
		chromedp.Click(css(`#payout-methods a[href$="/payout-methods/new"]`)),
		chromedp.WaitVisible(css("#field-routing_number")),
		// Leaving the field asks the server (htmx) to echo the ABA checksum.
		chromedp.SendKeys(css("#field-routing_number"), "021000021"),
		chromedp.Click(css("#field-account_number")),
		// The field's static hint is visible before the server's answer replaces it: wait for
		// the answer itself.
		chromedp.WaitVisible(chromedp.Search(`//*[@id="field-routing_number-hint"][contains(., "routing number (ABA")]`)),
	)
	if hint := text("#field-routing_number-hint"); !strings.Contains(hint, "Valid routing number") {
		t.Errorf("routing number hint = %q", hint)
	}
	browser.Run(t, ctx,
		chromedp.SendKeys(css("#field-account_number"), "123456789"),
		chromedp.Click(css(`#payout-method-form form button[type="submit"]`)),
		flash("Saved Bank account (ACH) •••• 6789."),
	)
	if m := text("#payout-methods li"); !strings.Contains(m, "Bank account (ACH)") || !strings.Contains(m, "6789") || strings.Contains(m, "123456789") {
		t.Errorf("payout method shown as %q", m)
	}

	browser.Run(t, ctx,
		chromedp.SendKeys(css("#move-money #field-amount"), "25.00"),
		chromedp.Click(css(`#move-money button[type="submit"]`)),
		flash("Moved $25.00 to the user."),
	)
	if got := text(`[data-testid="wallet-amount"]`); got != "$25.00" {
		browser.Screenshot(t, ctx, "wallet")
		t.Fatalf("the wallet reads %q, want $25.00", got)
	}
	signOut()

	signIn("support@example.com", supportPassword)
	browser.Run(t, ctx, chromedp.Navigate(userURL), chromedp.WaitVisible(css("#wallet")))
	if got := text(`[data-testid="wallet-amount"]`); got != "$25.00" {
		t.Errorf("support sees the wallet as %q", got)
	}
	noWay, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#move-money') === null &&
		document.querySelector('form[action*="/transfers"]') === null &&
		!document.body.innerText.includes('Move money') &&
		document.querySelector('nav a[href="/app"]') === null`))
	if err != nil || !noWay {
		browser.Screenshot(t, ctx, "support")
		t.Errorf("support has a way to move money (%v)", err)
	}
	signOut()

	if errs := browser.ConsoleErrors(ctx); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
