package handlers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserPayoutWaitsForApproval: in Chromium, an operator sends a payout above the threshold
// and it waits; a manager, in another browser, approves it; the payee is paid once and the queue
// is empty. On the public API the approval runs without the service's preflight, which only our
// service offers.
func TestBrowserPayoutWaitsForApproval(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			browserPayoutWaitsForApproval(t, newHarnessWith(t, harnessSetup{public: b.public}))
		})
	}
}

func browserPayoutWaitsForApproval(t *testing.T, h *harness) {
	maker, makerPassword := h.addOperator("maker@example.com", dashstore.RoleOperations)
	checker, checkerPassword := h.addOperator("checker@example.com", dashstore.RoleManager)
	u := h.largePayee("Bea", "Bigpayout", 5000_00)
	origin := h.serve()
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	text := func(tab context.Context, sel string) string {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return got
	}

	ops := browser.New(t)
	browserSignIn(t, ops, origin, maker.Email, makerPassword)
	browser.Run(t, ops,
		chromedp.Navigate(origin+"/users/"+u.ID),
		chromedp.SendKeys(css("#field-payout-amount"), "1500.00"),
		chromedp.Click(css(`#send-payout button[type="submit"]`)),
		chromedp.WaitVisible(css("#decision")),
	)
	if got := text(ops, "#decision"); !strings.Contains(got, "another operator must approve") {
		t.Errorf("the maker's page says %q, want that another operator must approve", got)
	}
	if n := h.payoutsOf(u); n != 0 {
		t.Fatalf("%d payouts before approval, want 0", n)
	}

	manager := browser.New(t)
	browserSignIn(t, manager, origin, checker.Email, checkerPassword)
	browser.Run(t, manager,
		chromedp.Navigate(origin+"/overview"),
		chromedp.WaitVisible(css("#overview-approvals")),
	)
	if got := text(manager, `[data-testid="approvals-count"]`); got != "1 waiting" {
		t.Errorf("the overview says %q, want 1 waiting", got)
	}
	browser.Run(t, manager,
		chromedp.Click(css(`#overview-approvals li a`)),
		chromedp.WaitVisible(css("#approve")),
	)
	if got := text(manager, `[data-testid="approval-payee"]`); got != "Bea Bigpayout" {
		t.Errorf("the payee is %q, want Bea Bigpayout", got)
	}
	browser.Run(t, manager,
		chromedp.Click(css("#approve")),
		chromedp.WaitVisible(css(`[data-testid="approval-result"]`)),
	)
	browser.Screenshot(t, manager, "approved")
	if n := h.payoutsOf(u); n != 1 {
		t.Errorf("%d payouts after approval, want 1", n)
	}
	browser.Run(t, manager,
		chromedp.Navigate(origin+"/approvals"),
		chromedp.WaitVisible(css("#approvals-open")),
	)
	if got := text(manager, "#approvals-open"); !strings.Contains(got, "Nothing waits") {
		t.Errorf("the queue is %q, want it empty", got)
	}
}
