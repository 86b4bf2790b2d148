package hosted_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserClaimsPayoutLink is the payee's whole journey in headless Chromium, on a phone-sized
// screen: a payout link made through the API is opened, the payee confirms their phone with the
// token the app's sandbox inbox shows, fills a W-9, passes the identity and background checks, adds a
// payout method and gets paid; the API then shows the link claimed and, once the rail settles,
// the payout completed.
func TestBrowserClaimsPayoutLink(t *testing.T) {
	browser.SkipShort(t)
	env := start(t)
	fund(t, env, 500_00)
	link := createLink(t, env, map[string]any{"amount": 123_45, "memo": "Logo design, March",
		"force_collect_compliance_information": true,
		"additional_steps":                     []string{"id-verification", "background-check", "manage-payouts"}})

	tab := browser.New(t)
	// An iPhone-sized screen: the pages are built for it first.
	browser.Run(t, tab, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2)))
	// step runs the actions of one page of the journey, then keeps a screenshot of it as name.
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		browser.Run(t, tab, actions...)
		browser.Screenshot(t, tab, name)
	}
	// heading waits for the page whose h1 says text: each click leads to a new page.
	heading := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(`//h1[contains(., "` + text + `")]`)
	}
	field := func(name string) chromedp.CSS { return chromedp.CSS(`[name="` + name + `"]`) }
	submit := chromedp.Click(chromedp.CSS(`main form button[type="submit"]:not([name])`))

	step("1-claim",
		chromedp.Navigate(link.Link),
		chromedp.WaitVisible(`//a[contains(., "Claim $123.45")]`),
	)
	step("2-identify",
		chromedp.Click(`//a[contains(., "Claim $123.45")]`),
		heading("Confirm it’s you"),
		chromedp.SendKeys(field("phone_number"), "(415) 555-0199"),
		submit,
		// The number is new: the page asks who the payee is.
		chromedp.WaitVisible(field("first_name")),
		chromedp.SendKeys(field("first_name"), "Grace"),
		chromedp.SendKeys(field("last_name"), "Hopper"),
		chromedp.SendKeys(field("email"), "grace@example.com"),
	)
	step("3-verify", submit, heading("Enter your code"))

	// The token is read where the app's staff read it: the app's sandbox inbox, behind its API
	// credentials (the dashboard shows the same list).
	var inbox payouts.List[payouts.SandboxMessage]
	env.Do(t, "GET", "/v2/sandbox/messages?limit=1", nil).Decode(t, &inbox)
	if len(inbox.Data) != 1 || inbox.Data[0].To != "+1 4155550199" || servicetest.TokenPattern.FindString(inbox.Data[0].Body) == "" {
		t.Fatalf("newest inbox message: %+v", inbox.Data)
	}
	token := servicetest.TokenPattern.FindString(inbox.Data[0].Body)

	step("5-compliance-error",
		chromedp.SendKeys(field("token"), token),
		submit,
		heading("Tax information"),
		chromedp.SetValue(field("w9.date_of_birth"), "1990-12-09"),
		chromedp.SendKeys(field("w9.tin"), "12345"),
		chromedp.SendKeys(field("w9.address.line_1"), "1 Navy Way"),
		chromedp.SendKeys(field("w9.address.city"), "Arlington"),
		chromedp.SendKeys(field("w9.address.state"), "VA"),
		chromedp.SendKeys(field("w9.address.postcode"), "22202"),
		submit,
		// The short TIN comes back with its problem beside it; the rest of the form is kept.
		chromedp.WaitVisible(`//p[@id="field-w9.tin-error"][contains(., "must be 9 digits")]`),
	)
	if city, err := chromedp.Run(tab, chromedp.Value(field("w9.address.city"))); err != nil || city != "Arlington" {
		t.Fatalf("city after the error: %q %v", city, err)
	}
	step("6-background-check",
		chromedp.SendKeys(field("w9.tin"), "123456789"),
		submit,
		heading("Identity check"),
		chromedp.SendKeys(field("ssn_last4"), "6789"),
		chromedp.SetValue(field("date_of_birth"), "1990-12-09"),
		submit,
		heading("Background check"),
		chromedp.Click(field("consent")),
		chromedp.SendKeys(field("name"), "Grace Hopper"),
	)
	step("7-payout-method",
		submit,
		heading("Payout methods"),
		// The platform is chosen with a link, so the form needs no script.
		chromedp.Click(`//nav[@aria-label="Payout platform"]/button[contains(., "Venmo")]`),
		chromedp.WaitVisible(field("handle")),
		chromedp.SendKeys(field("handle"), "@grace-hopper"),
	)
	step("8-payout",
		submit,
		heading("Get paid"),
		chromedp.WaitVisible(`//label[contains(., "Venmo @grace-hopper")]/input[@type="radio"]`),
	)
	step("9-done",
		chromedp.Click(`//button[contains(., "Pay out $123.45")]`),
		heading("All done"),
		chromedp.WaitVisible(`//p[contains(., "Your money is on its way.")]`),
	)
	// Forms shown again with their problems answer 422, which the console reports; any other
	// error, a CSP violation among them, is a fault.
	errs := slices.DeleteFunc(browser.ConsoleErrors(tab), func(e string) bool {
		return strings.Contains(e, "status of 422")
	})
	if len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}

	// Through the API: the link is claimed by the payee, and its payout is on the rail.
	var got payouts.PayoutLink
	env.Do(t, "GET", "/v2/payout-links/"+link.ID, nil).Decode(t, &got)
	if got.Status != payouts.LinkClaimed || got.ClaimedUserID == nil {
		t.Fatalf("link after the flow: %+v", got)
	}
	flow := getFlow(t, env, *link.FlowID)
	if !flow.Done() || len(flow.CompletedSteps) != 5 {
		t.Errorf("flow after the payee finished: %+v", flow)
	}
	payout := func() payouts.Transfer {
		t.Helper()
		r := env.Do(t, "GET", "/v2/transfers?type=payout&user_id="+*got.ClaimedUserID, nil)
		var list payouts.List[payouts.Transfer]
		r.Decode(t, &list)
		if r.Status != http.StatusOK || len(list.Data) != 1 {
			t.Fatalf("payouts of the payee: %d %s", r.Status, r.Body)
		}
		return list.Data[0]
	}
	if p := payout(); p.Status != payouts.TransferPending || p.Amount != 123_45 || p.ExternalData.Platform != payouts.PlatformVenmo ||
		p.PayoutLinkID == nil || *p.PayoutLinkID != link.ID {
		t.Fatalf("payout before settlement: %+v", p)
	}

	env.Clock.Advance(time.Minute)
	if n, err := env.Service.SettleDue(ctx, 10); err != nil || n != 1 {
		t.Fatalf("settle: %d payouts, %v", n, err)
	}
	if p := payout(); p.Status != payouts.TransferCompleted {
		t.Fatalf("payout after settlement: %+v", p)
	}
	user, err := env.Service.GetUser(ctx, env.AppID, *got.ClaimedUserID)
	if err != nil {
		t.Fatal(err)
	}
	if user.Wallet.Amount != 0 || !user.Compliance.Collected1099 || !user.Compliance.IDVerified || !user.Verified {
		t.Errorf("payee after the payout: wallet %+v, compliance %+v", user.Wallet, user.Compliance)
	}
	browser.Run(t, tab, chromedp.Reload(), chromedp.WaitVisible(`//p[contains(., "Your money has arrived.")]`))
	env.CheckLedger(t)
}

// TestBrowserEmailLinkTakesOverNobody is issue 44's takeover, tried in Chromium through the
// email-first pages (issue 47): the holder of a payout link sent to their email is asked for no
// phone first, enters the code their email got, then gives another payee's phone as their own,
// and lands on their own new account: the victim's wallet and methods are never shown, and
// paying out the whole wallet pays only the link's money.
func TestBrowserEmailLinkTakesOverNobody(t *testing.T) {
	browser.SkipShort(t)
	env := start(t)
	fund(t, env, 1_000_00)
	victim := createUser(t, env, "Vic", "Tim", "vic@example.com", "4155550801")
	if r := env.Do(t, "POST", "/v2/transfers", map[string]any{"amount": -500_00, "user_id": victim.ID}); r.Status >= 300 {
		t.Fatalf("fund the victim: %d %s", r.Status, r.Body)
	}
	if r := env.Do(t, "PUT", "/v2/users/"+victim.ID+"/payout-methods", map[string]any{"platform": "venmo", "handle": "@vic-tim"}); r.Status >= 300 {
		t.Fatalf("the victim's method: %d %s", r.Status, r.Body)
	}
	link := createLink(t, env, map[string]any{"amount": 12_00, "payee": map[string]string{"first_name": "Mal", "last_name": "Lory", "email": "mal@example.com"}})

	tab := browser.New(t)
	field := func(name string) chromedp.CSS { return chromedp.CSS(`[name="` + name + `"]`) }
	heading := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(`//h1[contains(., "` + text + `")]`)
	}
	submit := chromedp.Click(chromedp.CSS(`main form button[type="submit"]:not([name])`))
	browser.Run(t, tab,
		chromedp.Navigate(link.Link),
		chromedp.Click(`//a[contains(., "Claim $12.00")]`),
		heading("Confirm it’s you"),
		chromedp.WaitVisible(`//p[contains(., "We’ll email a 6-digit code to m•••@example.com")]`),
	)
	browser.Screenshot(t, tab, "email-first")
	if n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[name="phone_number"]').length`)); err != nil || n != 0 {
		t.Fatalf("phone fields on the first step: %d %v", n, err)
	}
	browser.Run(t, tab,
		submit,
		heading("Enter your code"),
	)
	browser.Run(t, tab,
		chromedp.SendKeys(field("token"), env.Inbox.Token(t, "mal@example.com")),
		submit,
		heading("Tell us who you are"),
		chromedp.SendKeys(field("phone_number"), "(415) 555-0801"),
		submit,
		heading("Get paid"),
	)
	browser.Screenshot(t, tab, "takeover-refused")
	body, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		t.Fatal(err)
	}
	for _, victims := range []string{"@vic-tim", "$500.00", "$512.00"} {
		if strings.Contains(body, victims) {
			t.Fatalf("the page shows the victim's %s:\n%s", victims, body)
		}
	}
	browser.Run(t, tab,
		// PayPal is the platform shown first; choosing it again would reload the page under the
		// keys typed.
		chromedp.WaitVisible(`//nav[@aria-label="Payout platform"]/button[@aria-current="true"][contains(., "PayPal")]`),
		chromedp.SendKeys(field("email"), "mal@example.com"),
		submit,
		chromedp.WaitVisible(`//label[contains(., "mal@example.com")]/input[@type="radio"]`),
		chromedp.Click(`//button[contains(., "Pay out $12.00")]`),
		heading("All done"),
	)
	if f := getFlow(t, env, *link.FlowID); f.UserID == nil || *f.UserID == victim.ID {
		t.Fatalf("the flow's payee: %v", f.UserID)
	}
	if u, err := env.Service.GetUser(ctx, env.AppID, victim.ID); err != nil || u.Wallet.Amount != 500_00 {
		t.Fatalf("the victim's wallet: %+v %v", u, err)
	}
	methods, err := env.Service.ListPayoutMethods(ctx, env.AppID, victim.ID)
	if err != nil || len(methods) != 1 || methods[0].Platform != payouts.PlatformVenmo {
		t.Fatalf("the victim's methods: %+v %v", methods, err)
	}
}
