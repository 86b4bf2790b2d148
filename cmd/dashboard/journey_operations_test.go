package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// Operations creates a flow; the iframe shows the hosted flow, a step is completed inside the
// iframe, and the progress beside it updates by itself.
func TestBrowserOperationsRunsAFlow(t *testing.T) {
	for _, b := range journeyBackends {
		t.Run(b.name, func(t *testing.T) { operationsRunsAFlow(t, startJourneyOn(t, b.public)) })
	}
}

func operationsRunsAFlow(t *testing.T, j *journey) {
	ctx := context.Background()
	u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Flo", LastName: "Framed", Email: "flo@example.com",
		CountryCode: "1", PhoneNumber: "4155550177"})
	if err != nil {
		t.Fatal(err)
	}
	// The dashboard is opened as localhost, the service answers as 127.0.0.1: two sites, so the
	// flow runs in a cross-site iframe, as on an app's own site.
	origin := strings.Replace(j.base, "127.0.0.1", "localhost", 1)
	j.signIn(origin, dashstore.RoleOperations)
	j.run(
		chromedp.Navigate(origin+"/flows/new?user="+u.ID),
		chromedp.WaitVisible(chromedp.CSS("#flow-form")),
		chromedp.Click(chromedp.CSS(`input[name="steps.background-check"]`)),
		chromedp.Click(chromedp.CSS(`input[name="steps.manage-payouts"]`)),
		chromedp.Click(chromedp.CSS(`#flow-form button[type="submit"]`)),
		flash("Created the flow."),
		chromedp.WaitVisible(chromedp.CSS("#flow-frame")),
	)
	if got := j.text(`[data-testid="flow-progress-text"]`); got != "0 of 2 steps completed" {
		t.Errorf("progress before: %q", got)
	}
	loc, _ := chromedp.Run(j.tab, chromedp.Location())
	flowID := loc[strings.LastIndex(loc, "/")+1:]

	field := func(name string) chromedp.CSS { return chromedp.CSS(`[name="` + name + `"]`) }
	// Inside the framed page the test sets values and submits through the DOM rather than with
	// synthetic key and mouse events: under load Chrome sometimes never delivered input events to
	// the out-of-process iframe, and the test hung.
	submit := chromedp.Submit(chromedp.CSS(`main form button[type="submit"]:not([name])`))
	heading := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.Search(`//h1[contains(., "` + text + `")]`))
	}
	frame := browser.Frame(t, j.tab, j.hosted+"/f/"+flowID, heading("Confirm it’s you"))
	inFrame := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(frame, actions...); err != nil {
			browser.Screenshot(t, j.tab, "frame")
			t.Fatalf("in the iframe: %v", err)
		}
	}
	inFrame(chromedp.SetValue(field("phone_number"), "4155550177"), submit, heading("Enter your code"))
	inFrame(chromedp.SetValue(field("token"), j.sandboxCode("+1 4155550177")), submit, heading("Background check"),
		chromedp.SetAttributeValue(field("consent"), "checked", "checked"), chromedp.SetValue(field("name"), "Flo Framed"),
		submit, heading("Payout methods"))

	// Nobody reloads the dashboard's page: its progress asks for itself every 2 seconds.
	j.run(chromedp.WaitVisible(chromedp.CSS(`#flow-progress[data-completed="1"]`)))
	if got := j.text(`[data-testid="flow-progress-text"]`); got != "1 of 2 steps completed" {
		t.Errorf("progress after the step: %q", got)
	}
	f, err := j.api.GetFlow(ctx, flowID)
	if err != nil || !slices.Equal(f.CompletedSteps, []string{payouts.StepBackgroundCheck}) {
		t.Errorf("flow in the service: %+v, %v", f, err)
	}
	j.noConsoleErrors()
}

// sandboxCode reads the newest verification code sent to a phone from the app's sandbox inbox,
// through the typed client, as the dashboard's inbox page reads it.
func (j *journey) sandboxCode(to string) string {
	j.t.Helper()
	list, err := j.api.SandboxMessages(context.Background(), payouts.Page{Limit: payouts.MaxLimit})
	if err != nil {
		j.t.Fatal(err)
	}
	for _, m := range list.Data {
		if m.To == to {
			if code := regexp.MustCompile(`\b\d{6}\b`).FindString(m.Body); code != "" {
				return code
			}
		}
	}
	j.t.Fatalf("no code to %s in the sandbox inbox", to)
	return ""
}

// A double click on Send payout pays once: the form's idempotency key makes a second submit the
// same payout. Chrome folds a quick double click into one submit itself, so the journey also
// clicks again while the first answer is still on its way (a slow network and an impatient
// operator): both posts reach the dashboard, and one payout is made.
func TestBrowserDoubleClickedPayoutPaysOnce(t *testing.T) {
	for _, b := range journeyBackends {
		t.Run(b.name, func(t *testing.T) { doubleClickedPayoutPaysOnce(t, startJourneyOn(t, b.public)) })
	}
}

func doubleClickedPayoutPaysOnce(t *testing.T, j *journey) {
	ctx := context.Background()
	u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Dee", LastName: "Double", Email: "dee@example.com",
		CountryCode: "1", PhoneNumber: "4155550188"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.api.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: "dee@example.com", IsDefault: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.api.Deposit(ctx, j.appID, payouts.DepositRequest{Amount: 100_00}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: u.ID, Amount: -50_00}); err != nil {
		t.Fatal(err)
	}
	payoutsMade := func() []string {
		t.Helper()
		var out []string
		for tr, err := range j.api.AllTransfers(ctx, payouts.TransferFilter{UserID: u.ID, Type: payouts.TransferPayout}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tr.ID)
		}
		return out
	}
	posts := func() int {
		t.Helper()
		entries, _, err := j.store.AuditLog(ctx, dashstore.AuditFilter{ObjectType: "user", ObjectID: u.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	button := chromedp.CSS(`#send-payout button[type="submit"]`)

	j.signIn(j.base, dashstore.RoleOperations)
	j.run(
		chromedp.Navigate(j.base+"/users/"+u.ID),
		chromedp.WaitVisible(chromedp.CSS("#send-payout")),
		chromedp.SendKeys(chromedp.CSS("#field-payout-amount"), "7.00"),
		chromedp.DoubleClick(button),
		flash("Sent a payout of $7.00 by PayPal."),
	)
	if got := payoutsMade(); len(got) != 1 {
		t.Fatalf("%d payouts after a double click, want 1", len(got))
	}

	// Hold the dashboard's answers in the browser: the first post is done on the server, and
	// the page with the button is still there to click again.
	held := make(chan fetch.RequestID, 4)
	go func() {
		for ev, err := range chromedp.Events(j.tab, fetch.RequestPaused) {
			if err != nil {
				return
			}
			held <- ev.RequestID
		}
	}()
	if _, err := chromedp.Call(j.tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "*/users/" + u.ID + "/payouts", RequestStage: fetch.RequestStageResponse}}}); err != nil {
		t.Fatal(err)
	}
	waitHeld := func() fetch.RequestID {
		t.Helper()
		select {
		case id := <-held:
			return id
		case <-time.After(30 * time.Second):
			t.Fatal("the payout form's post did not come back")
			return ""
		}
	}
	j.run(chromedp.SendKeys(chromedp.CSS("#field-payout-amount"), "5.00"), chromedp.ScrollIntoView(button))
	box, err := chromedp.Run(j.tab, chromedp.Dimensions(button))
	if err != nil {
		t.Fatal(err)
	}
	// The second click goes to where the button is: with a navigation pending, chromedp's
	// queries wait for the next page, which is held back.
	q := box.Content
	x, y := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
	j.run(chromedp.MouseClickXY(x, y))
	first := waitHeld()
	j.run(chromedp.MouseClickXY(x, y))
	second := waitHeld()
	// The second post canceled the first navigation: its held answer is gone with it.
	chromedp.Call(j.tab, fetch.ContinueResponse, fetch.ContinueResponseParams{RequestID: first})
	if _, err := chromedp.Call(j.tab, fetch.ContinueResponse, fetch.ContinueResponseParams{RequestID: second}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(j.tab, fetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	j.run(flash("Sent a payout of $5.00 by PayPal."))

	made := payoutsMade()
	if len(made) != 2 {
		t.Fatalf("%d payouts after two double clicks, want 2", len(made))
	}
	if n := posts(); n != 3 {
		t.Errorf("the dashboard handled %d payout posts, want 3 (the quick double click as one, the slow one as two)", n)
	}
	got, err := j.api.GetUser(ctx, u.ID)
	if err != nil || got.Wallet.WithdrawableAmount != 38_00 {
		t.Errorf("wallet %+v (%v): want $38.00 left, $7.00 and $5.00 paid once each", got.Wallet, err)
	}
	j.noConsoleErrors()
}
