package handlers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserBulkOutcomes: in Chromium on a phone's width, a file with a row the rail fails after
// sending and one held for review: once sent the page says 1 sent and 2 not yet paid, not paid;
// after the rail settles, reloading it says 1 paid, 1 failed with the rail's reason, 1 held.
func TestBrowserBulkOutcomes(t *testing.T) {
	browser.SkipShort(t)
	h := newHarnessWith(t, harnessSetup{sharedClock: true,
		service: []servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	ada, bob, cy := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte"), h.createUser("Cy", "Press")
	h.payPalDefault(ada)
	h.payPalDefault(cy)
	if _, err := h.payouts.AddPayoutMethod(context.Background(), bob.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: "slowfail.bob@example.com", IsDefault: true}); err != nil {
		t.Fatal(err)
	}
	h.deposit(500_00)
	file := filepath.Join(t.TempDir(), "outcomes.csv")
	if err := os.WriteFile(file, []byte("user,amount,memo,method\n"+ada.ID+",10.00,,paypal\n"+bob.ID+",5.00,,paypal\n"+
		cy.ID+",13.13,,paypal\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	browser.Run(t, tab,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(origin+"/bulk"),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-file`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#bulk-file`), []string{file}),
		chromedp.Click(chromedp.CSS(`#bulk-upload button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-review`)),
	)
	if review := text(`#bulk-review`); !strings.Contains(review, "Bobby Byte") || !strings.Contains(review, "$13.13") {
		t.Errorf("the preview does not say who is paid:\n%s", review)
	}
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`#bulk-preview form[action$="/confirm"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)),
	)
	browser.Screenshot(t, tab, "sent")
	if got := text(`[data-testid="bulk-result"]`); !strings.Contains(got, "0 paid") || !strings.Contains(got, "2 sent, 1 held") {
		t.Errorf("once sent: %q, want 0 paid, 2 sent, 1 held", got)
	}
	h.settlePayouts()
	browser.Run(t, tab, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)))
	browser.Screenshot(t, tab, "settled")
	if got := text(`[data-testid="bulk-result"]`); !strings.Contains(got, "1 paid ($10.00), 0 sent, 1 held, 1 failed") {
		t.Errorf("once settled: %q, want 1 paid, 1 held, 1 failed", got)
	}
	// Rows given by user id are named by their payees, never shown as the id.
	if got := text(`#bulk-problems`); !strings.Contains(got, "Failed") || !strings.Contains(got, "Held for review") ||
		!strings.Contains(got, "Bobby Byte") || strings.Contains(got, bob.ID) {
		t.Errorf("the rows not paid do not say whose and how they stand:\n%s", got)
	}
}
