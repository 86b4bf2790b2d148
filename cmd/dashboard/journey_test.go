package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/web"
)

// journey is the whole product, started as the README's first command starts it, for one
// operator's journey in a real headless Chromium. The scene is set through the product's own
// doors: the service's API with the embedded app's credentials (kept in the dashboard's
// database), and operators added to the dashboard's database.
type journey struct {
	t      *testing.T
	base   string // the dashboard
	hosted string // the service's origin: hosted pages and the sandbox inbox
	store  *dashstore.Store
	api    *client.Client
	appID  string
	tab    context.Context
}

var serviceAPI = regexp.MustCompile(`Payout Service API at (http://\S+)/api`)

func startJourney(t *testing.T) *journey {
	t.Helper()
	dir := t.TempDir()
	dashDB := filepath.Join(dir, "dashboard.db")
	base, out, _ := start(t, []string{"--addr", "127.0.0.1:0", "--service-addr", "127.0.0.1:0",
		"--dashboard-db", dashDB, "--db", filepath.Join(dir, "disburse.db")}, nil)
	m := serviceAPI.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no service address printed:\n%s", out)
	}
	ctx := context.Background()
	store, err := dashstore.Open(ctx, dashDB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	creds, err := store.ServiceCredentials(ctx, embeddedApp)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	api, err := client.New(m[1]+"/api", client.WithCredentials(creds.ClientID, creds.APIKey), client.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return &journey{t: t, base: base, hosted: m[1], store: store, api: api, appID: creds.AppID, tab: browser.New(t)}
}

// operator adds an operator with role and returns their email and password. Cheap hash costs
// keep sign-in quick; the hash records them, so the dashboard checks it like any other.
func (j *journey) operator(role dashstore.Role) (string, string) {
	j.t.Helper()
	password := "journey password " + string(role)
	hash, err := web.HashPassword(password, web.PasswordParams{Memory: 1024, Time: 1, Threads: 1})
	if err != nil {
		j.t.Fatal(err)
	}
	op := dashstore.Operator{Email: "journey-" + string(role) + "@example.com", Name: "Journey " + string(role), Role: role, PasswordHash: hash}
	if err := j.store.CreateOperator(context.Background(), &op, time.Now()); err != nil {
		j.t.Fatal(err)
	}
	return op.Email, password
}

// signIn signs in through the login form at origin.
func (j *journey) signIn(origin string, role dashstore.Role) {
	j.t.Helper()
	email, password := j.operator(role)
	browser.Run(j.t, j.tab,
		chromedp.Navigate(origin+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#login-form")),
		chromedp.SendKeys(chromedp.CSS("#field-email"), email),
		chromedp.SendKeys(chromedp.CSS("#field-password"), password),
		chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)),
	)
}

func (j *journey) run(actions ...chromedp.Action[chromedp.Void]) {
	j.t.Helper()
	if err := chromedp.Do(j.tab, actions...); err != nil {
		browser.Screenshot(j.t, j.tab, "failed")
		j.t.Fatalf("browser: %v", err)
	}
}

func (j *journey) text(sel string) string {
	j.t.Helper()
	s, err := chromedp.Run(j.tab, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		browser.Screenshot(j.t, j.tab, "text")
		j.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// rows returns the data-id of each row of the table inside sel.
func (j *journey) rows(sel string) []string {
	j.t.Helper()
	ids, err := chromedp.Run(j.tab, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll(`+strconv.Quote(sel+" tr[data-id]")+`)).map(r => r.dataset.id)`))
	if err != nil {
		j.t.Fatal(err)
	}
	return ids
}

// waitRows waits until the table inside sel shows exactly the rows want and htmx has finished
// with it (so its new links are htmx's before the next click). A page load on the way, such as a
// link followed as a plain link, is waited through.
func (j *journey) waitRows(sel string, want []string) {
	j.t.Helper()
	b, _ := json.Marshal(want)
	shown := `JSON.stringify(Array.from(document.querySelectorAll(` + strconv.Quote(sel+" tr[data-id]") +
		`)).map(r => r.dataset.id)) === ` + strconv.Quote(string(b)) +
		` && document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling') === null`
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok, err := chromedp.Run(j.tab, chromedp.Evaluate[bool](shown)); err == nil && ok {
			return
		}
	}
	got := j.rows(sel)
	j.t.Fatalf("the table shows %d rows %v…, want %d rows %v…", len(got), head(got), len(want), head(want))
}

// flash waits for a flash message of the next page.
func flash(message string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.Search(`//*[@data-dismissable]/p[normalize-space()="` + message + `"]`))
}

func (j *journey) noConsoleErrors() {
	j.t.Helper()
	if errs := browser.ConsoleErrors(j.tab); len(errs) > 0 {
		j.t.Errorf("console errors: %q", errs)
	}
}

// Support finds a payout link by the payee's email and cancels it with a reason; the link then
// shows canceled, the money is back, and the audit log has the reason.
func TestBrowserSupportCancelsPayoutLink(t *testing.T) {
	j := startJourney(t)
	ctx := context.Background()
	if _, err := j.api.Deposit(ctx, j.appID, payouts.DepositRequest{Amount: 500_00}); err != nil {
		t.Fatal(err)
	}
	var target *payouts.PayoutLink
	for i, email := range []string{"alex@example.com", "casey.cancel@example.com", "casey.keep@example.com", "drew@example.com"} {
		l, err := j.api.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: int64(10_00 * (i + 1)),
			Payee: &payouts.Payee{FirstName: "Payee", LastName: strconv.Itoa(i), Email: email}})
		if err != nil {
			t.Fatal(err)
		}
		if email == "casey.cancel@example.com" {
			target = l
		}
	}
	app, _ := j.api.GetApp(ctx, j.appID)
	before := app.Wallet.WithdrawableAmount

	j.signIn(j.base, dashstore.RoleSupport)
	j.run(
		chromedp.Navigate(j.base+"/payout-links"),
		chromedp.WaitVisible(chromedp.CSS("#filter-q")),
		chromedp.SendKeys(chromedp.CSS("#filter-q"), "casey.cancel@example.com"),
	)
	// The search applies as support types: htmx swaps the table for the one matching link and
	// puts the search in the address bar (once the whole address is typed, the last search is
	// done).
	j.run(chromedp.Poll[chromedp.Void](`location.search.includes('q=casey.cancel%40example.com')`,
		chromedp.WithPollingTimeout(20*time.Second)))
	j.waitRows("#payout-links-table", []string{target.ID})
	j.run(
		chromedp.Click(chromedp.CSS(`#payout-links-table a[href="/payout-links/`+target.ID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("#cancel-link textarea")),
	)
	if got := j.text("#payout-link-url"); got != target.Link {
		t.Errorf("the link shown is %q, want %q", got, target.Link)
	}
	j.run(
		chromedp.SendKeys(chromedp.CSS("#field-reason"), "payee asked to be paid by bank transfer instead"),
		chromedp.Click(chromedp.CSS(`#cancel-link button[type="submit"]`)),
		flash("Canceled the payout link; $20.00 is back in the app's wallet."),
	)
	if got := j.text(`[data-testid="link-status"]`); !strings.EqualFold(got, "canceled") {
		t.Errorf("the link shows %q, want canceled", got)
	}
	if n, _ := chromedp.Run(j.tab, chromedp.Evaluate[int](`document.querySelectorAll('#cancel-link form').length`)); n != 0 {
		t.Error("the canceled link still offers to cancel it")
	}

	// Back on the list, the status filter applies as soon as it is chosen: only this link is
	// canceled.
	j.run(
		chromedp.Navigate(j.base+"/payout-links"),
		chromedp.WaitVisible(chromedp.CSS("#field-status")),
		chromedp.Poll[chromedp.Void](`(() => { const s = document.querySelector('#field-status'); s.value = 'canceled';
			s.dispatchEvent(new Event('change', {bubbles: true})); return true })()`),
	)
	j.waitRows("#payout-links-table", []string{target.ID})
	if loc, _ := chromedp.Run(j.tab, chromedp.Location()); !strings.Contains(loc, "status=canceled") {
		t.Errorf("the status filter is not in the address bar: %s", loc)
	}

	got, err := j.api.GetPayoutLink(ctx, target.ID)
	if err != nil || got.Status != payouts.LinkCanceled {
		t.Fatalf("link in the service: %+v, %v", got, err)
	}
	app, _ = j.api.GetApp(ctx, j.appID)
	if app.Wallet.WithdrawableAmount != before+target.Amount {
		t.Errorf("the app has %s available, want %s", app.Wallet.WithdrawableAmount, before+target.Amount)
	}
	entries, _, err := j.store.AuditLog(ctx, dashstore.AuditFilter{ObjectType: "payout_link", ObjectID: target.ID, Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].OperatorEmail != "journey-support@example.com" ||
		!strings.HasSuffix(entries[0].Detail, ": payee asked to be paid by bank transfer instead") {
		t.Errorf("audit = %+v, %v", entries, err)
	}
	j.noConsoleErrors()
}

// A manager narrows the transactions to one user's, pages through all 250 of them forward and
// back, and exports them: the file holds exactly those rows.
func TestBrowserManagerPagesAndExportsTransactions(t *testing.T) {
	j := startJourney(t)
	ctx := context.Background()
	if _, err := j.api.Deposit(ctx, j.appID, payouts.DepositRequest{Amount: 1000_00}); err != nil {
		t.Fatal(err)
	}
	newUser := func(first string) *payouts.User {
		u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: first, LastName: "Ledger",
			Email: strings.ToLower(first) + "@example.com", CountryCode: "1", PhoneNumber: "55501" + strconv.Itoa(len(first))})
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
	if n, _ := chromedp.Run(j.tab, chromedp.Evaluate[int](`document.evaluate('//div[@id="transactions-table"]//a[contains(., "Older")]', document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null).snapshotLength`)); n != 0 {
		t.Error("the last page offers an older one")
	}
	loc, _ := chromedp.Run(j.tab, chromedp.Location())
	if !strings.Contains(loc, "user="+mia.ID) || !strings.Contains(loc, "after=") {
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
	if strings.Join(rows[0], ",") != "id,created,type,status,transfer_id,user_id,source_name,destination_name,amount,amount_cents,metadata" {
		t.Errorf("header %v", rows[0])
	}
	var exported []string
	for _, r := range rows[1:] {
		exported = append(exported, r[0])
		if r[5] != mia.ID {
			t.Errorf("row %s belongs to user %s", r[0], r[5])
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
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		j.t.Fatalf("the download is not CSV with a header: %v", err)
	}
	return rows
}

// Operations creates a flow; the iframe shows the hosted flow, a step is completed inside the
// iframe, and the progress beside it updates by itself.
func TestBrowserOperationsRunsAFlow(t *testing.T) {
	j := startJourney(t)
	ctx := context.Background()
	u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Flo", LastName: "Framed", Email: "flo@example.com",
		CountryCode: "1", PhoneNumber: "5550177"})
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
	submit := chromedp.Submit(chromedp.CSS(`main form button[type="submit"]`))
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
	inFrame(chromedp.SetValue(field("phone_number"), "5550177"), submit, heading("Enter your code"))
	inFrame(chromedp.SetValue(field("token"), j.sandboxCode("+1 5550177")), submit, heading("Background check"),
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

// sandboxCode reads the newest verification code sent to a phone from the sandbox inbox.
func (j *journey) sandboxCode(to string) string {
	j.t.Helper()
	res, err := http.Get(j.hosted + "/sandbox/inbox")
	if err != nil {
		j.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	page := string(b)
	i := strings.Index(page, ">"+to+"<")
	if i < 0 {
		j.t.Fatalf("no message to %s in the sandbox inbox", to)
	}
	code := regexp.MustCompile(`>(\d{6})<`).FindStringSubmatch(page[i:])
	if code == nil {
		j.t.Fatalf("no code in the message to %s", to)
	}
	return code[1]
}

// A double click on Send payout pays once: the form's idempotency key makes a second submit the
// same payout. Chrome folds a quick double click into one submit itself, so the journey also
// clicks again while the first answer is still on its way (a slow network and an impatient
// operator): both posts reach the dashboard, and one payout is made.
func TestBrowserDoubleClickedPayoutPaysOnce(t *testing.T) {
	j := startJourney(t)
	ctx := context.Background()
	u, err := j.api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Dee", LastName: "Double", Email: "dee@example.com",
		CountryCode: "1", PhoneNumber: "5550188"})
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
