package main

import (
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// A manager narrows the transactions to one user's, pages through all 250 of them forward and
// back, and exports them: the file holds exactly those rows. On the public API, which cannot
// filter transactions by user, the dashboard pages through the lines of the user's transfers
// itself and says so.
func TestBrowserManagerPagesAndExportsTransactions(t *testing.T) {
	for _, b := range journeyBackends {
		t.Run(b.name, func(t *testing.T) { managerPagesAndExportsTransactions(t, startJourneyOn(t, b.public)) })
	}
}

func managerPagesAndExportsTransactions(t *testing.T, j *journey) {
	ctx := context.Background()
	if _, err := j.api.Deposit(ctx, j.appID, payouts.DepositRequest{Amount: 1000_00}); err != nil {
		t.Fatal(err)
	}
	newUser := func(first string) *payouts.User {
		u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: first, LastName: "Ledger",
			Email: strings.ToLower(first) + "@example.com", CountryCode: "1", PhoneNumber: "415555010" + strconv.Itoa(len(first)%10)})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	mia, other := newUser("Mia"), newUser("Otto")
	// Interleaved, so the user's rows are not one block of the ledger.
	for i := range 250 {
		for _, u := range []*payouts.User{mia, other} {
			if u == other && i%10 != 0 {
				continue
			}
			if _, err := j.api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: u.ID, Amount: -int64(100 + i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The newest line is another user's, so the unfiltered list does not start as the user's.
	if _, err := j.api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: other.ID, Amount: -1}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for tx, err := range j.api.AllTransactions(ctx, payouts.TransactionFilter{UserID: mia.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, strconv.FormatInt(tx.ID, 10))
	}
	if len(want) != 250 {
		t.Fatalf("setup: %d transactions of the user, want 250", len(want))
	}

	j.signIn(j.base, dashstore.RoleManager)
	j.run(
		chromedp.Navigate(j.base+"/transactions"),
		chromedp.WaitVisible(chromedp.CSS("#filter-user")),
		chromedp.SendKeys(chromedp.CSS("#filter-user"), mia.ID+"\r"),
	)
	const size = 50
	j.waitRows("#transactions-table", want[:size])
	j.saysFilteredHere()
	// A mark on the window survives htmx swaps, not page loads: paging must keep it.
	j.run(chromedp.Poll[chromedp.Void](`(window.journeyMark = 'paging') === 'paging'`))
	var pages [][]string
	for p := 0; p*size < len(want); p++ {
		if p > 0 {
			j.run(chromedp.Click(chromedp.Search(`//div[@id="transactions-table"]//a[contains(., "Older")]`)))
		}
		page := want[p*size : min((p+1)*size, len(want))]
		j.waitRows("#transactions-table", page)
		pages = append(pages, page)
	}
	j.saysFilteredHere()
	if n, _ := chromedp.Run(j.tab, chromedp.Evaluate[int](`document.evaluate('//div[@id="transactions-table"]//a[contains(., "Older")]', document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null).snapshotLength`)); n != 0 {
		t.Error("the last page offers an older one")
	}
	loc, _ := chromedp.Run(j.tab, chromedp.Location())
	if !strings.Contains(loc, "user_id="+mia.ID) || !strings.Contains(loc, "after=") {
		t.Errorf("the address bar %q does not bookmark the page", loc)
	}
	for p := len(pages) - 2; p >= 0; p-- {
		j.run(chromedp.Click(chromedp.Search(`//div[@id="transactions-table"]//a[contains(., "Newer")]`)))
		j.waitRows("#transactions-table", pages[p])
	}
	if mark, _ := chromedp.Run(j.tab, chromedp.Evaluate[string](`window.journeyMark || ''`)); mark != "paging" {
		t.Error("paging loaded whole pages instead of swapping the table")
	}
	// The address of a page works on its own, as a bookmark, without htmx.
	j.run(chromedp.Navigate(loc), chromedp.WaitVisible(chromedp.CSS("#transactions-table")))
	if got := j.rows("#transactions-table"); !slices.Equal(got, pages[len(pages)-1]) {
		t.Errorf("the bookmarked last page shows %v…", head(got))
	}

	rows := j.download(`#transactions-table a[data-testid="export"]`)
	if strings.Join(rows[0], ",") != "id,created,type,status,direction,amount,signed_amount,money_in,money_out,user_id,payee_name,payee_email,transfer_id,source_name,destination_name,metadata,time_zone" {
		t.Errorf("header %v", rows[0])
	}
	var exported []string
	for _, r := range rows[1:] {
		exported = append(exported, r[0])
		if r[9] != mia.ID || r[10] != mia.FirstName+" "+mia.LastName {
			t.Errorf("row %s belongs to user %s, %q", r[0], r[9], r[10])
		}
	}
	if !slices.Equal(exported, want) {
		t.Errorf("the export has %d rows %v…, want the user's %d %v…", len(exported), head(exported), len(want), head(want))
	}
	j.noConsoleErrors()
}

func head(s []string) []string { return s[:min(3, len(s))] }

// download clicks the link of sel and returns the CSV file the browser saved.
func (j *journey) download(sel string) [][]string {
	j.t.Helper()
	dir := j.t.TempDir()
	events := true
	if _, err := chromedp.CallBrowser(j.tab, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events}); err != nil {
		j.t.Fatal(err)
	}
	done := make(chan cdpbrowser.EventDownloadProgress, 1)
	go func() {
		for ev, err := range chromedp.BrowserEvents(j.tab, cdpbrowser.DownloadProgress) {
			if err != nil {
				return
			}
			if ev.State == cdpbrowser.DownloadProgressStateCompleted || ev.State == cdpbrowser.DownloadProgressStateCanceled {
				done <- ev
				return
			}
		}
	}()
	j.run(chromedp.Click(chromedp.CSS(sel)))
	var ev cdpbrowser.EventDownloadProgress
	select {
	case ev = <-done:
	case <-time.After(time.Minute):
		j.t.Fatal("the download did not finish in a minute")
	}
	if ev.State != cdpbrowser.DownloadProgressStateCompleted {
		j.t.Fatalf("download %s", ev.State)
	}
	f, err := os.Open(filepath.Join(dir, ev.GUID))
	if err != nil {
		j.t.Fatal(err)
	}
	defer f.Close()
	// The file starts with a byte-order mark, so that Excel reads it as UTF-8.
	bom := make([]byte, 3)
	if _, err := io.ReadFull(f, bom); err != nil || string(bom) != "\ufeff" {
		j.t.Fatalf("the download starts with %q, not a byte-order mark: %v", bom, err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		j.t.Fatalf("the download is not CSV with a header: %v", err)
	}
	return rows
}
