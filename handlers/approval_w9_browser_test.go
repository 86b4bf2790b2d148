package handlers_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// TestBrowserApprovingForAPayeeOwingW9: in Chromium, an admin opens from the Approvals queue a
// payout request the API made for a payee who owes a W-9; the page says so before anyone
// approves, and Approve answers why not, leaving the request open and nothing made, so no link
// goes to a payee who could not finish it; once the W-9 is filed, Approve goes through. The
// public API reviews no request: its page says where to decide it and offers no Approve.
func TestBrowserApprovingForAPayeeOwingW9(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			browserApprovingForAPayeeOwingW9(t, newHarnessWith(t, harnessSetup{public: b.public, handlers: func(c *handlers.Config) {
				c.Approvals.Approvers = []dashstore.Role{dashstore.RoleAdmin}
			}}), b.public)
		})
	}
}

func browserApprovingForAPayeeOwingW9(t *testing.T, h *harness, public bool) {
	h.deposit(10_000_00)
	owes := h.payee("Olga", "olga@pay.example", 2_000_00) // over the 1099 threshold, no W-9
	r, err := h.payouts.CreatePayoutRequest(t.Context(), payouts.CreatePayoutRequestRequest{UserID: owes.ID, Amount: 15_00})
	if err != nil {
		t.Fatal(err)
	}
	tab, origin := h.browserSignedIn(dashstore.RoleAdmin)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/approvals"),
		chromedp.Click(chromedp.CSS(`a[href="`+paths.PayoutRequest(r.ID)+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#decision`)),
	)
	if public {
		wantTexts(t, "The request's page", textOf(t, tab, `#decision`), "Decide it on the Dots dashboard.")
		if n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('#approve').length`)); err != nil || n != 0 {
			t.Errorf("the public API's request offers Approve (%d, %v)", n, err)
		}
		return
	}
	wantTexts(t, "The checks", textOf(t, tab, `#approval-checks`), "collect their W-9")
	browser.Run(t, tab, chromedp.Click(chromedp.CSS(`#approve`)), chromedp.WaitVisible(chromedp.CSS(`#decision [role="alert"]`)))
	browser.Screenshot(t, tab, "not-approved")
	wantTexts(t, "Approve", textOf(t, tab, `#decision [role="alert"]`), "Not approved: ", "collect their W-9", "It stays open")
	if got, err := h.payouts.GetPayoutRequest(t.Context(), r.ID); err != nil || got.Status != payouts.RequestCreated || got.PayoutLink != nil {
		t.Fatalf("after a refused approval the request is %+v, %v; want it open, nothing made", got, err)
	}

	h.w9Of(owes)
	browser.Run(t, tab, chromedp.Navigate(origin+paths.PayoutRequest(r.ID)), chromedp.WaitVisible(chromedp.CSS(`#approval-checks`)))
	wantTexts(t, "The checks once the W-9 is filed", textOf(t, tab, `#approval-checks`), "find nothing that would refuse it now")
	browser.Run(t, tab, chromedp.Click(chromedp.CSS(`#approve`)), chromedp.WaitVisible(chromedp.CSS(`[role="status"]`)))
	wantTexts(t, "Approve once the W-9 is filed", textOf(t, tab, `[role="status"] p`), "Approved the $15.00 payout request for Olga Payee.")
	if got, err := h.payouts.GetPayoutRequest(t.Context(), r.ID); err != nil || got.PayoutLink == nil {
		t.Errorf("after approving, the request is %+v, %v; want its link made", got, err)
	}
}
