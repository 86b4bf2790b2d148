package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/internal/testutil/servicetest"
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
	public bool // the dashboard talks to the public-API double, not our service
}

var serviceAPI = regexp.MustCompile(`Payout Service API at (http://\S+)/api`)

// journeyBackends are the services a journey runs against: the embedded Payout Service, and a
// strict stand-in for the public Dots API in front of a Payout Service, as on a Dots account.
var journeyBackends = []struct {
	name   string
	public bool
}{{"payoutd", false}, {"public API", true}}

// startJourneyOn starts the product for a journey: as startJourney does, or, with public, the
// dashboard alone with --api-url pointed at the public-API double in front of a Payout Service,
// as the README's "Use with a Dots account" starts it. The hosted pages stay at the service's
// origin, not the double's (--hosted-url), as a Dots account's are not at its API's; the service
// lets the dashboard frame them, so its address is chosen first.
func startJourneyOn(t *testing.T, public bool) *journey {
	t.Helper()
	if !public {
		return startJourney(t)
	}
	tab := browser.New(t) // first: without a browser the journey is skipped before anything starts
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	env := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) {
		c.FrameAncestors = []string{"http://" + addr, "http://localhost:" + port}
	}))
	apiURL, _ := dotsdouble.Start(t, env.URL)
	dashDB := filepath.Join(t.TempDir(), "dashboard.db")
	hosted := strings.TrimSuffix(env.URL, "/api")
	base, _, _ := start(t, []string{"--addr", addr, "--dashboard-db", dashDB, "--api-url", apiURL, "--hosted-url", hosted,
		"--api-client-id", env.ClientID, "--api-key", env.APIKey, "--app-id", env.AppID}, nil)
	store, err := dashstore.Open(context.Background(), dashDB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	api, err := client.New(env.URL, client.WithCredentials(env.ClientID, env.APIKey), client.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return &journey{t: t, base: base, hosted: hosted, store: store, api: api, appID: env.AppID,
		tab: tab, public: true}
}

// freeAddr is a loopback address with a port nothing listens on now, for a server whose address
// another must know before it starts.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func startJourney(t *testing.T) *journey {
	t.Helper()
	tab := browser.New(t) // first: without a browser the journey is skipped before anything starts
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
	sealKey, err := payoutd.EncryptionKey(nil, dashDB) // the key file the dashboard made
	if err != nil {
		t.Fatal(err)
	}
	creds, err := store.ServiceCredentials(ctx, embeddedApp, sealKey)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	api, err := client.New(m[1]+"/api", client.WithCredentials(creds.ClientID, creds.APIKey), client.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return &journey{t: t, base: base, hosted: m[1], store: store, api: api, appID: creds.AppID, tab: tab}
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

// signIn adds an operator with role and signs in as them through the login form at origin.
func (j *journey) signIn(origin string, role dashstore.Role) {
	j.t.Helper()
	email, password := j.operator(role)
	j.signInAs(origin, email, password)
}

// signInAs signs in through the login form at origin.
func (j *journey) signInAs(origin, email, password string) {
	j.t.Helper()
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

// saysFilteredHere checks that the page says it filtered the list itself exactly when the
// dashboard talks to the public API, which cannot filter it.
func (j *journey) saysFilteredHere() {
	j.t.Helper()
	said, err := chromedp.Run(j.tab, chromedp.Evaluate[bool](
		`Array.from(document.querySelectorAll('[data-testid="api-note"]')).some(n => n.innerText.startsWith('Filtered here'))`))
	if err != nil || said != j.public {
		j.t.Errorf("the page says it filtered the list itself: %v (%v), want %v", said, err, j.public)
	}
}

// saysNotAvailable waits for the page's note that what, an extension of our service, is not
// available on the API the dashboard talks to.
func (j *journey) saysNotAvailable(what string) {
	j.t.Helper()
	j.run(chromedp.WaitVisible(chromedp.Search(`//*[@data-testid="api-note"][starts-with(normalize-space(), "` + what +
		`: not available on this API")]`)))
}

func (j *journey) noConsoleErrors() {
	j.t.Helper()
	if errs := browser.ConsoleErrors(j.tab); len(errs) > 0 {
		j.t.Errorf("console errors: %q", errs)
	}
}

// Support finds a payout link by the payee's email and cancels it with a reason; the link then
// shows canceled, the money is back, and the audit log has the reason. On the public API, which
// cannot search or filter links, the dashboard filters them itself and the list says so.
func TestBrowserSupportCancelsPayoutLink(t *testing.T) {
	for _, b := range journeyBackends {
		t.Run(b.name, func(t *testing.T) { supportCancelsPayoutLink(t, startJourneyOn(t, b.public)) })
	}
}

func supportCancelsPayoutLink(t *testing.T, j *journey) {
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
	j.saysFilteredHere()
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
	j.saysFilteredHere()
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
