package handlers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// fetchHead is what the page gets fetching url with its own cookies: the status, the content
// type and the body's first bytes as text.
const fetchHead = `fetch(%s).then(async r => r.status + ' ' + r.headers.get('content-type') + ' ' + (await r.text()).slice(0, 4000))`

// TestBrowserTaxYear: in Chromium, a manager opens the year's tax forms, generates them, and
// downloads a payee's Copy B and the IRIS file; the payee then opens their tax-forms flow, proves
// who they are with the code texted to them, consents to electronic delivery and downloads their
// Copy B.
func TestBrowserTaxYear(t *testing.T) {
	browser.SkipShort(t)
	h, users := taxHarness(t, "DG5BW")
	page, origin := h.browserSignedIn(dashstore.RoleManager)
	eval := func(js string) string {
		t.Helper()
		got, err := chromedp.Run(page, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return got
	}
	browser.Run(t, page,
		chromedp.Navigate(origin+"/tax?year=2026"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tax-due"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="generate"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tax-forms"] [data-testid="download"]`)),
	)
	browser.Screenshot(t, page, "tax-forms")
	pdf := eval(strings.Replace(fetchHead, "%s", `document.querySelector('[data-testid="tax-forms"] [data-testid="download"]').href`, 1))
	if !strings.HasPrefix(pdf, "200 application/pdf %PDF-") {
		t.Errorf("the Copy B download: %.60q", pdf)
	}
	iris := eval(strings.Replace(fetchHead, "%s", `document.querySelector('[data-testid="iris"]').href`, 1))
	if !strings.HasPrefix(iris, "200 text/csv") || !strings.Contains(iris, "401123456,Tina Tax,") {
		t.Errorf("the IRIS download: %q", iris)
	}
	if got := h.auditActions("app", h.env.AppID); len(got) < 2 || got[0].Action != "tax.download" || got[1].Action != "tax.generate" {
		t.Errorf("audit: %+v", got)
	}

	// The payee, on the flow the company sends them.
	tina := users["tina"]
	flow, err := h.payouts.CreateFlow(context.Background(), payouts.CreateFlowRequest{UserID: tina.ID,
		Steps: []payouts.Step{{Name: payouts.StepTaxForms}}})
	if err != nil {
		t.Fatal(err)
	}
	payee := browser.New(t)
	browser.Run(t, payee,
		chromedp.Navigate(flow.Link),
		chromedp.SendKeys(chromedp.CSS(`[name="phone_number"]`), tina.PhoneNumber.PhoneNumber),
		chromedp.Click(chromedp.CSS(`form[action*="/identify"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[name="token"]`)),
	)
	token := h.env.Inbox.Token(t, "+1 "+tina.PhoneNumber.PhoneNumber)
	browser.Run(t, payee,
		chromedp.SendKeys(chromedp.CSS(`[name="token"]`), token),
		chromedp.Click(chromedp.CSS(`form[action*="/verify"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#field-consent`)),
		chromedp.Click(chromedp.CSS(`#field-consent`)),
		chromedp.Click(chromedp.CSS(`form[action*="/tax-forms"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="download-copy-b"]`)),
	)
	browser.Screenshot(t, payee, "hosted-tax-forms")
	// The hosted pages' policy forbids scripts to fetch: the payee clicks, and Chromium saves.
	dir := t.TempDir()
	browser.Run(t, payee,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
			return err
		}),
		chromedp.Click(chromedp.CSS(`[data-testid="download-copy-b"]`)),
	)
	saved := waitForFile(t, dir, ".pdf")
	if !strings.HasPrefix(saved, "%PDF-") {
		t.Errorf("the payee saved %.20q, not a PDF", saved)
	}
	total, err := h.payouts.UserTaxYear(context.Background(), tina.ID, 2026)
	if err != nil || !total.Consented {
		t.Errorf("consent not recorded: %+v (%v)", total, err)
	}
}

// waitForFile waits for Chromium to finish saving a file named …suffix into dir (it writes a
// .crdownload first), and returns its content; it gives up after a minute.
func waitForFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		names, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
		if len(names) == 1 {
			b, err := os.ReadFile(names[0])
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no %s file was saved in %s", suffix, dir)
	return ""
}
