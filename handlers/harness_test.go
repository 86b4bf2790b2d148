package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/dbtemplate"
	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/web"
)

// cheap argon2id costs keep tests fast; the format and the checks are the production ones.
var testPassword = web.PasswordParams{Memory: 1024, Time: 1, Threads: 1}

// testApprovals is the dashboard's default approval policy: above $1,000.00, by admins and managers.
var testApprovals = dashstore.DefaultApprovalPolicy()

// dashTemplate is the dashboard's schema on SQLite, migrated once for the package's tests.
var dashTemplate = dbtemplate.New(func(ctx context.Context, path string) error {
	st, err := dashstore.Open(ctx, path)
	if err != nil {
		return err
	}
	return st.Close()
})

// harness is a whole dashboard: a real store on SQLite, the web server and every handler.
type harness struct {
	t       testing.TB
	srv     *web.Server
	store   *dashstore.Store
	dsn     string // the store's database
	clock   *testclock.Clock
	env     *servicetest.Env // the real Payout Service, over HTTP
	payouts *client.Client   // the tests' client of it, for making data; the dashboard's too unless public
	// public is the stand-in for the public Dots API the dashboard talks to instead, when the
	// harness was started with harnessSetup.public.
	public *dotsdouble.Double
	// handlers are the dashboard's, for the background work cmd/dashboard runs.
	handlers *handlers.Handlers
}

type harnessOption func(*web.Config)

// newHarness starts the real Payout Service and a dashboard talking to it through the client.
func newHarness(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	return newHarnessWith(t, harnessSetup{}, opts...)
}

// harnessSetup is what a test may change of the service and the handlers newHarnessWith starts.
type harnessSetup struct {
	service  []servicetest.Option
	handlers func(*handlers.Config)
	// public puts a strict stand-in for the public Dots API (dotsdouble) between the dashboard
	// and the service, as on a Dots account: none of our extensions.
	public bool
	// dsn is the dashboard's database (a SQLite path or a postgres:// URL); empty: a SQLite file
	// of its own.
	dsn string
	// sharedClock gives the service the dashboard's clock, for a test that moves both.
	sharedClock bool
	// requests, when set, hears every request sent to the service (the tests' and the dashboard's).
	requests *requestLog
}

// requestLog keeps the requests sent through it, as "METHOD /path", for a test that holds a page
// to the calls it makes.
type requestLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []string
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.sent = append(l.sent, r.Method+" "+r.URL.Path)
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

// take returns the requests sent since the last take.
func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	sent := l.sent
	l.sent = nil
	return sent
}

// newHarnessWith is newHarness with the service's options and the handlers' configuration changed.
func newHarnessWith(t testing.TB, setup harnessSetup, opts ...harnessOption) *harness {
	t.Helper()
	ctx := context.Background()
	if setup.dsn == "" {
		setup.dsn = filepath.Join(t.TempDir(), "dashboard.db")
		dashTemplate.Write(t, setup.dsn)
	}
	store, err := dashstore.Open(ctx, setup.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clk := testclock.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	if setup.sharedClock {
		setup.service = append(setup.service, servicetest.WithClock(clk))
	}
	env := servicetest.Start(t, setup.service...)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	if setup.requests != nil {
		setup.requests.next, hc.Transport = hc.Transport, setup.requests
	}
	// Runs before the service's own cleanup (cleanups run last-in first-out), so its graceful
	// shutdown does not wait on this client's idle keep-alive connections.
	t.Cleanup(hc.CloseIdleConnections)
	payouts, err := client.New(env.URL, client.WithCredentials(env.ClientID, env.APIKey), client.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	// One call before anything else: it also makes sure the service is accepting before a short
	// test's cleanup shuts it down (a shutdown racing the server's start leaves it accepting).
	if _, err := payouts.GetApp(ctx, env.AppID); err != nil {
		t.Fatal(err)
	}
	dashPayouts, public := payouts, (*dotsdouble.Double)(nil)
	if setup.public {
		var base string
		base, public = dotsdouble.Start(t, env.URL)
		if dashPayouts, err = client.New(base, client.WithCredentials(env.ClientID, env.APIKey), client.WithHTTPClient(hc)); err != nil {
			t.Fatal(err)
		}
	}
	h := &harness{t: t, store: store, dsn: setup.dsn, clock: clk, env: env, payouts: payouts, public: public}
	h.srv = h.dashboard(setup, dashPayouts, opts...)
	return h
}

// dashboard starts the web server and the handlers of one dashboard on h's store, clock and
// service, reached through dashPayouts.
func (h *harness) dashboard(setup harnessSetup, dashPayouts handlers.Payouts, opts ...harnessOption) *web.Server {
	h.t.Helper()
	logger := servicetest.KeptLog(h.t, "dashboard")
	cfg := web.Config{Store: h.store, Logger: logger, Now: h.clock.Now, Password: testPassword, Nav: handlers.Nav,
		FrameSources: []string{"http://127.0.0.1:8081"}}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := web.New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	dash := handlers.Config{Web: srv, Store: h.store, Payouts: dashPayouts, AppID: h.env.AppID, APIURL: h.env.URL, ClientID: h.env.ClientID,
		Now: h.clock.Now, Password: testPassword, Logger: logger, Approvals: testApprovals,
		BulkPoll: 10 * time.Millisecond} // a bulk job asks after its batches every 300ms by default
	if setup.handlers != nil {
		setup.handlers(&dash)
	}
	hs, err := handlers.Register(dash)
	if err != nil {
		h.t.Fatal(err)
	}
	h.handlers = hs
	return srv
}

// twin is a second dashboard on h's database, opened again, and h's service: another process of
// the same deployment. Its agents sign in on it; the operators are the same.
func (h *harness) twin(setup harnessSetup) *harness {
	h.t.Helper()
	store, err := dashstore.Open(context.Background(), h.dsn)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { store.Close() })
	second := *h
	second.store = store
	second.srv = second.dashboard(setup, h.payouts)
	return &second
}

// addOperator creates an operator with a known password.
func (h *harness) addOperator(email string, role dashstore.Role) (dashstore.Operator, string) {
	h.t.Helper()
	password := "correct horse " + string(role)
	hash, err := web.HashPassword(password, testPassword)
	if err != nil {
		h.t.Fatal(err)
	}
	op := dashstore.Operator{Email: email, Name: strings.Split(email, "@")[0], Role: role, PasswordHash: hash}
	if err := h.store.CreateOperator(context.Background(), &op, h.clock.Now()); err != nil {
		h.t.Fatal(err)
	}
	return op, password
}

// agent is one browser: it keeps its cookies and the last CSRF token it was given.
type agent struct {
	h       *harness
	cookies map[string]string
	csrf    string
	header  http.Header // sent with every request (e.g. a spoofed X-Forwarded-For)
}

func (h *harness) agent() *agent {
	return &agent{h: h, cookies: map[string]string{}, header: http.Header{}}
}

// response is an answer with its body read.
type response struct {
	*http.Response
	body string
}

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func (a *agent) do(req *http.Request) response {
	a.h.t.Helper()
	for k, vs := range a.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	for name, value := range a.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	res, err := a.h.srv.App.Test(req, -1)
	if err != nil {
		a.h.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		a.h.t.Fatal(err)
	}
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 {
			delete(a.cookies, c.Name)
		} else {
			a.cookies[c.Name] = c.Value
		}
	}
	if m := csrfPattern.FindStringSubmatch(string(b)); m != nil {
		a.csrf = m[1]
	}
	return response{Response: res, body: string(b)}
}

func (a *agent) get(path string, header ...string) response {
	a.h.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return a.do(req)
}

// post submits a form with the agent's CSRF token, as a browser would.
func (a *agent) post(path string, form url.Values, header ...string) response {
	a.h.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("_csrf") == "" && a.csrf != "" {
		form.Set("_csrf", a.csrf)
	}
	return a.postRaw(path, form, header...)
}

// postRaw submits a form exactly as given, without adding a CSRF token.
func (a *agent) postRaw(path string, form url.Values, header ...string) response {
	a.h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return a.do(req)
}

// login signs the agent in and fails the test if that does not work.
func (a *agent) login(email, password string) {
	a.h.t.Helper()
	a.get("/login")
	res := a.post("/login", url.Values{"email": {email}, "password": {password}})
	if res.StatusCode != http.StatusSeeOther {
		a.h.t.Fatalf("login %s: status %d, want 303\n%s", email, res.StatusCode, res.body)
	}
	a.get("/users") // picks up the rotated session's CSRF token
}

// signedIn returns a new agent signed in as a new operator with role.
func (h *harness) signedIn(role dashstore.Role) (*agent, dashstore.Operator) {
	h.t.Helper()
	op, password := h.addOperator(string(role)+"@example.com", role)
	a := h.agent()
	a.login(op.Email, password)
	return a, op
}

func wantStatus(t testing.TB, res response, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d\n%.2000s", res.Request.Method, res.Request.URL, res.StatusCode, want, res.body)
	}
}

func wantBody(t testing.TB, res response, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.body, p) {
			t.Errorf("%s %s: body lacks %q\n%.3000s", res.Request.Method, res.Request.URL, p, res.body)
		}
	}
}

func wantRedirect(t testing.TB, res response, prefix string) {
	t.Helper()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, prefix) {
		t.Fatalf("%s %s: status %d to %q, want 303 to %s…", res.Request.Method, res.Request.URL, res.StatusCode, loc, prefix)
	}
}

// createUser makes a payee in the service directly, as setup.
func (h *harness) createUser(first, last string) *payouts.User {
	h.t.Helper()
	u, err := h.payouts.CreateUser(context.Background(), payouts.CreateUserRequest{FirstName: first, LastName: last,
		Email: strings.ToLower(first+"."+last) + "@example.com", CountryCode: "1", PhoneNumber: "415555010" + fmt.Sprint(len(first)%10)})
	if err != nil {
		h.t.Fatal(err)
	}
	return u
}

// deposit funds the app's wallet directly, as setup.
func (h *harness) deposit(cents int64) *payouts.Transfer {
	h.t.Helper()
	t, err := h.payouts.Deposit(context.Background(), h.env.AppID, payouts.DepositRequest{Amount: cents})
	if err != nil {
		h.t.Fatal(err)
	}
	return t
}

// createPayoutLink issues a payout link directly, as setup; the app needs the money.
func (h *harness) createPayoutLink(req payouts.CreatePayoutLinkRequest) *payouts.PayoutLink {
	h.t.Helper()
	l, err := h.payouts.CreatePayoutLink(context.Background(), req)
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}

// concurrently calls create(0) … create(n-1) from eight goroutines and fails t with what failed:
// the service commits concurrent writes together, so setup of hundreds of rows costs a few
// commits instead of one each.
func concurrently(t testing.TB, n int, create func(i int) error) {
	t.Helper()
	const workers = 8
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n && errs[w] == nil; i += workers {
				errs[w] = create(i)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// createFlow makes a flow directly, as setup.
func (h *harness) createFlow(req payouts.CreateFlowRequest) *payouts.Flow {
	h.t.Helper()
	f, err := h.payouts.CreateFlow(context.Background(), req)
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

// fundedUser makes a payee with a PayPal method and moves cents from the app to their wallet,
// depositing into the app first (with $10.00 more for the fees the app pays).
func (h *harness) fundedUser(first, last string, cents int64) *payouts.User {
	h.t.Helper()
	ctx := context.Background()
	u := h.createUser(first, last)
	h.payPalDefault(u)
	h.deposit(cents + 10_00)
	if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: u.ID, Amount: -cents}); err != nil {
		h.t.Fatal(err)
	}
	return u
}

// payPalDefault saves a PayPal method at the user's email as their default, as setup.
func (h *harness) payPalDefault(u *payouts.User) {
	h.t.Helper()
	if _, err := h.payouts.AddPayoutMethod(context.Background(), u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: u.Email, IsDefault: true}); err != nil {
		h.t.Fatal(err)
	}
}

// flaggedPayout pays a user $13.13, the sandbox's amount that is held for review.
func (h *harness) flaggedPayout(u *payouts.User) *payouts.Transfer {
	h.t.Helper()
	t, err := h.payouts.CreatePayout(context.Background(), payouts.CreatePayoutRequest{UserID: u.ID, Amount: 1313,
		Platform: payouts.PlatformDefault})
	if err != nil {
		h.t.Fatal(err)
	}
	if t.Status != payouts.TransferFlagged {
		h.t.Fatalf("a $13.13 payout is %s, want flagged", t.Status)
	}
	return t
}

// auditActions lists the actions the audit log holds for an object, newest first.
func (h *harness) auditActions(objectType, objectID string) []dashstore.AuditEntry {
	h.t.Helper()
	entries, _, err := h.store.AuditLog(context.Background(), dashstore.AuditFilter{ObjectType: objectType, ObjectID: objectID, Limit: 100})
	if err != nil {
		h.t.Fatal(err)
	}
	return entries
}

// htmxGet asks for path as htmx does, and fails the test if the answer is a whole page.
func (a *agent) htmxGet(path string) response {
	a.h.t.Helper()
	res := a.get(path, "HX-Request", "true")
	if strings.Contains(res.body, "<html") {
		a.h.t.Fatalf("GET %s from htmx answered a whole page", path)
	}
	return res
}

// links returns the hrefs of the answer matching pattern (a regexp with one group), unescaped.
func links(res response, pattern string) []string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(res.body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}
