package handlers_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserBulkPayout: in Chromium, an operator uploads a CSV of 1,000 payouts of which 3 are
// bad, sees each bad row's problem in the preview, confirms, watches the progress reach done
// (htmx polling, no reload) and downloads the result CSV: 997 rows paid, 3 skipped with reasons.
func TestBrowserBulkPayout(t *testing.T) {
	browser.SkipShort(t)
	h := newHarness(t)
	users := []*payouts.User{h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte"), h.createUser("Cy", "Cat")}
	h.deposit(2_000_00)
	var b strings.Builder
	b.WriteString("user,amount,memo,method\n")
	for i := range 1000 {
		row := fmt.Sprintf("%s,1.00,March %d,\n", users[i%3].Email, i+1)
		switch i + 1 {
		case 10:
			row = "nobody@example.com,1.00,,\n"
		case 500:
			row = users[0].Email + ",1.2.5,,\n"
		case 999:
			row = users[1].Email + ",1.00,,carrier pigeon\n"
		}
		b.WriteString(row)
	}
	file := filepath.Join(t.TempDir(), "march.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	tab, _ := h.browserSignedIn(dashstore.RoleOperations)
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`nav[aria-label="Main"] a[href="/bulk"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-file`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#bulk-file`), []string{file}),
		chromedp.Click(chromedp.CSS(`#bulk-upload button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-preview`)),
	)
	browser.Screenshot(t, tab, "preview")
	problems, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`#bulk-problems tbody`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"10", "No user nobody@example.com.", "500", "Column amount: “1.2.5” cannot be read", "999", "Unknown method “carrier pigeon”"} {
		if !strings.Contains(problems, want) {
			t.Errorf("the preview's problems lack %q:\n%s", want, problems)
		}
	}
	if total, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`[data-testid="bulk-total"]`))); total != "$997.00" {
		// Below the dashboard's approval threshold ($1,000.00), so it goes at once.
		t.Errorf("total %q, want $997.00 (997 × $1.00)", total)
	}

	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`#bulk-preview form[action$="/confirm"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#bulk-progress progress`)),
		// The bar polls itself; the result shows up without a reload once the job is done.
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)),
	)
	browser.Screenshot(t, tab, "done")
	result, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`[data-testid="bulk-result"]`)))
	if err != nil || !strings.Contains(result, "997 paid") || !strings.Contains(result, "3 skipped") {
		t.Errorf("result %q (%v)", result, err)
	}
	// The download link's file, fetched by the page with its session, as a click would save it.
	body, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`fetch(document.querySelector('a[download]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range rows[1:] {
		count[r[3]]++
		if r[3] != "paid" && r[5] == "" {
			t.Errorf("row %s is %s without a reason", r[0], r[3])
		}
	}
	if len(rows) != 1001 || count["paid"] != 997 || count["skipped"] != 3 {
		t.Errorf("result CSV: %d rows, outcomes %v; want 1,000 rows, 997 paid and 3 skipped", len(rows)-1, count)
	}
}
