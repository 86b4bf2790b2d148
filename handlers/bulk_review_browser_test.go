package handlers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserBulkReviewWhoIsPaid: in Chromium, on both backends, operations uploads a file of 60
// rows (more than the 50 a page lists), 20 of them naming their payee by user id; the preview
// lists the rows to pay with each payee's name and amount, never a bare id, on two pages, and the
// totals per payee; the file is over the approval threshold, and the manager who approves it
// reads the same payees and totals on the approval page.
func TestBrowserBulkReviewWhoIsPaid(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			browserBulkReviewWhoIsPaid(t, newHarnessWith(t, harnessSetup{public: b.public}))
		})
	}
}

func browserBulkReviewWhoIsPaid(t *testing.T, h *harness) {
	h.deposit(5_000_00)
	ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
	var file strings.Builder
	file.WriteString("user,amount,memo\n")
	for i := range 60 {
		if i%3 == 0 {
			fmt.Fprintf(&file, "%s,20.00,r%d\n", bob.ID, i) // by id: 20 rows, $400.00
		} else {
			fmt.Fprintf(&file, "%s,20.00,r%d\n", ada.Email, i) // by email: 40 rows, $800.00
		}
	}
	path := filepath.Join(t.TempDir(), "march.csv")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/bulk"),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-file`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#bulk-file`), []string{path}),
		chromedp.Click(chromedp.CSS(`#bulk-upload button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-review`)),
	)
	browser.Screenshot(t, tab, "preview")
	rowTexts := func() []string {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('[data-testid="bulk-review-row"]')].map(r => r.innerText.replace(/\s+/g, ' ').trim())`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	perPayee := func() string {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[string](
			`[...document.querySelectorAll('[data-testid="bulk-payee-total"]')].map(r => r.innerText.replace(/\s+/g, ' ').trim()).join(' | ')`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	wantTexts(t, "the totals per payee", perPayee(), "Ada Lovelace", "$800.00", "40 rows", "Bobby Byte", "$400.00", "20 rows")
	first := rowTexts()
	if len(first) != 50 {
		t.Fatalf("the first page lists %d rows to pay, want 50", len(first))
	}
	wantTexts(t, "row 1", first[0], "Bobby Byte", "$20.00")
	wantTexts(t, "row 2", first[1], "Ada Lovelace", "$20.00")
	browser.Run(t, tab, chromedp.Click(chromedp.CSS(`nav[aria-label="Pages of rows to pay"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-review`)))
	second := rowTexts()
	if len(second) != 10 {
		t.Errorf("the second page lists %d rows to pay, want the other 10", len(second))
	}
	for _, r := range append(first, second...) {
		if strings.Contains(r, bob.ID) {
			t.Errorf("a row reads %q: the payee's id, not their name", r)
		}
	}

	// $1,200.00 is over the approval threshold: confirming holds the file for a manager.
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`#bulk-preview form[action$="/confirm"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#main`)),
	)
	manager, password := h.addOperator("manager@example.com", dashstore.RoleManager)
	tab = browser.New(t)
	browserSignIn(t, tab, origin, manager.Email, password)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/approvals"),
		chromedp.WaitVisible(chromedp.CSS(`#approvals-open`)),
		chromedp.Click(chromedp.CSS(`#approvals-open a[href^="/approvals/"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#approve`)),
	)
	browser.Screenshot(t, tab, "approval")
	wantTexts(t, "the approval's totals per payee", perPayee(), "Ada Lovelace", "$800.00", "40 rows", "Bobby Byte", "$400.00", "20 rows")
	if got := rowTexts(); len(got) != 50 || !strings.Contains(got[0], "Bobby Byte") {
		t.Errorf("the approval page lists %d rows to pay, first %q; want the first 50, Bobby Byte's first", len(got), got)
	}
	browser.Run(t, tab, chromedp.Click(chromedp.CSS(`nav[aria-label="Pages of rows to pay"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#approve`)))
	if got := rowTexts(); len(got) != 10 {
		t.Errorf("the approval's second page lists %d rows to pay, want the other 10", len(got))
	}
}
