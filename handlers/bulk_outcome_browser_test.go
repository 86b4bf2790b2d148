package handlers_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
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
// sending and one held for review, read at three moments on the job page and in its result CSV:
// once sent, 0 paid, 2 sent and 1 held; after the rail settles, 1 paid, 1 failed with the rail's
// reason, 1 held; once the held row is released (from its transfer's page, or on the public API,
// which reviews nothing, by the service) and settled, 2 paid. On our service the Overview counts
// the failed row as failed from the second moment.
func TestBrowserBulkOutcomes(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			browserBulkOutcomes(t, newHarnessWith(t, harnessSetup{public: b.public, sharedClock: true,
				service: []servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}}), b.public)
		})
	}
}

func browserBulkOutcomes(t *testing.T, h *harness, public bool) {
	ada, bob, cy := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte"), h.createUser("Cy", "Press")
	h.payPalDefault(ada)
	h.payPalDefault(cy)
	h.slowFailPayPal(bob)
	h.deposit(500_00)
	file := filepath.Join(t.TempDir(), "outcomes.csv")
	if err := os.WriteFile(file, []byte("user,amount,memo,method\n"+ada.ID+",10.00,,paypal\n"+bob.ID+",5.00,,paypal\n"+
		cy.ID+",13.13,,paypal\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	browser.Run(t, tab,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(origin+"/bulk"),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-file`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#bulk-file`), []string{file}),
		chromedp.Click(chromedp.CSS(`#bulk-upload button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-review`)),
	)
	if review := textOf(t, tab, `#bulk-review`); !strings.Contains(review, "Bobby Byte") || !strings.Contains(review, "$13.13") {
		t.Errorf("the preview does not say who is paid:\n%s", review)
	}
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`#bulk-preview form[action$="/confirm"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)),
	)
	job, err := chromedp.Run(tab, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	// check reads the job page and its result CSV, as downloaded from the page, at one moment.
	var held string // the held row's transfer, from the CSV
	check := func(moment, result string, outcomes []string) {
		t.Helper()
		browser.Run(t, tab, chromedp.Navigate(job), chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)))
		browser.Screenshot(t, tab, moment)
		if got := textOf(t, tab, `[data-testid="bulk-result"]`); !strings.Contains(got, result) {
			t.Errorf("%s: the job page says %q, want %q", moment, got, result)
		}
		body, err := chromedp.Run(tab, chromedp.Evaluate[string](
			`fetch(document.querySelector('a[href$="/result.csv"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
		if err != nil || len(rows) != 4 {
			t.Fatalf("%s: the result CSV has %d rows (%v):\n%s", moment, len(rows), err, body)
		}
		var got []string
		for _, r := range rows[1:] {
			got = append(got, r[3])
		}
		if !slices.Equal(got, outcomes) {
			t.Errorf("%s: the result CSV's outcomes are %q, want %q", moment, got, outcomes)
		}
		held = rows[3][4]
		if public {
			return
		}
		browser.Run(t, tab, chromedp.Navigate(origin+"/overview"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="failed-total"]`)))
		failed := "0 failed"
		if moment != "sent" {
			failed = "1 failed: 1 payout transfer"
		}
		if got := textOf(t, tab, `[data-testid="failed-total"]`); !strings.HasPrefix(got, failed) {
			t.Errorf("%s: the Overview counts %q, want %q", moment, got, failed)
		}
	}

	check("sent", "0 paid ($0.00), 2 sent, 1 held, 0 failed", []string{"sent", "sent", "held"})
	h.settlePayouts()
	check("settled", "1 paid ($10.00), 0 sent, 1 held, 1 failed", []string{"paid", "failed", "held"})
	// Rows given by user id are named by their payees, never shown as the id; the failed row says
	// why, as far as the service says.
	reason := "the sandbox PayPal account was closed"
	if public {
		reason = "the service gave no reason"
	}
	browser.Run(t, tab, chromedp.Navigate(job), chromedp.WaitVisible(chromedp.CSS(`#bulk-problems`)))
	if got := textOf(t, tab, `#bulk-problems`); !strings.Contains(got, "Failed") || !strings.Contains(got, "Held for review") ||
		!strings.Contains(got, "Bobby Byte") || strings.Contains(got, bob.ID) || !strings.Contains(got, reason) {
		t.Errorf("the rows not paid do not say whose, how they stand and why:\n%s", got)
	}

	if public {
		if _, err := h.payouts.ReviewTransfer(t.Context(), held, payouts.ReviewTransferRequest{Action: payouts.ReviewRelease}); err != nil {
			t.Fatal(err)
		}
	} else {
		browser.Run(t, tab,
			chromedp.Navigate(origin+"/transfers/"+held),
			chromedp.WaitVisible(chromedp.CSS(`#review`)),
			chromedp.Click(chromedp.CSS(`#review form input[value="release"] ~ button`)),
			chromedp.WaitNotPresent(chromedp.CSS(`#review`)),
		)
	}
	h.settlePayouts()
	check("released", "2 paid ($23.13), 0 sent, 0 held, 1 failed", []string{"paid", "failed", "paid"})
}
