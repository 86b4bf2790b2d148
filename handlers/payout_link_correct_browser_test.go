package handlers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserCorrectPayoutLink: in Chromium, on both backends, operations opens a link whose
// email bounced, types the corrected address in the form the page offers and sends it; the
// link reaches the corrected address, and the payee there verifies and claims it.
func TestBrowserCorrectPayoutLink(t *testing.T) {
	for _, tc := range []struct {
		name, button, flash string
		public              bool
	}{
		{"our service", "Correct and send", "on its way to email g•••@example.com", false},
		{"public API", "Cancel this link and issue a new one", "Canceled the payout link and issued a new one", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h := newHarnessWith(t, harnessSetup{public: tc.public, service: []servicetest.Option{
				servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
			h.deposit(100_00)
			link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 9_00, Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail},
				Payee: &payouts.Payee{FirstName: "Grace", LastName: "Hopper", Email: "grace@bounce.example.com"}})
			if _, err := h.env.Service.DeliverDue(ctx, 10); err != nil {
				t.Fatal(err)
			}
			tab, origin := h.browserSignedIn(dashstore.RoleOperations)
			email := `#correct-link [name="payee.email"]`
			browser.Run(t, tab,
				chromedp.Navigate(origin+"/payout-links/"+link.ID),
				chromedp.WaitVisible(chromedp.CSS(email)),
				chromedp.SetValue(chromedp.CSS(email), "grace@example.com"),
				chromedp.Click(chromedp.CSS(`#correct-link button[type="submit"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-dismissable]`)),
			)
			browser.Screenshot(t, tab, "payout-link-corrected-"+map[bool]string{false: "service", true: "public"}[tc.public])
			body, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`body`)))
			if err != nil || !strings.Contains(body, tc.flash) {
				t.Fatalf("after %q the page reads %q (%v)", tc.button, body, err)
			}
			location, err := chromedp.Run(tab, chromedp.Location())
			if err != nil {
				t.Fatal(err)
			}
			id := location[strings.LastIndex(location, "/")+1:]
			if _, err := h.env.Service.DeliverDue(ctx, 10); err != nil {
				t.Fatal(err)
			}
			sent, err := h.payouts.GetPayoutLink(ctx, id)
			if err != nil || sent.Status != payouts.LinkDelivered || sent.Payee.Email != "grace@example.com" {
				t.Fatalf("the link on the page: %+v (%v)", sent, err)
			}
			if m, ok := h.env.Inbox.Last("grace@example.com"); !ok || !strings.Contains(m.Body, "/l/"+id) {
				t.Fatalf("the corrected address got %+v (%v)", m, ok)
			}
			payee, err := h.env.Service.IdentifyPayee(ctx, *sent.FlowID, "192.0.2.7", payouts.CreateUserRequest{FirstName: "Grace",
				LastName: "Hopper", Email: "grace@example.com", CountryCode: "1", PhoneNumber: "4155550161"})
			if err != nil {
				t.Fatal(err)
			}
			if payee, err = h.env.Service.VerifyPayee(ctx, payee, h.env.Inbox.Token(t, "grace@example.com")); err != nil {
				t.Fatal(err)
			}
			claimed, err := h.env.Service.ClaimPayoutLink(ctx, id, payee.UserID)
			if err != nil || claimed.Status != payouts.LinkClaimed || *claimed.ClaimedUserID != payee.UserID {
				t.Fatalf("the corrected payee's claim: %+v (%v)", claimed, err)
			}
		})
	}
}
