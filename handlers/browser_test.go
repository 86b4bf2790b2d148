package handlers_test

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserPayoutLinkFormShowsEveryProblem: in Chromium, one submit of the payout link form
// with several mistakes shows a sentence under each field at once (the browser's own checks,
// which stop at the first, are off), and keeps what was typed.
func TestBrowserPayoutLinkFormShowsEveryProblem(t *testing.T) {
	browser.SkipShort(t)
	h := newHarness(t)
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	field := func(name string) chromedp.CSS { return chromedp.CSS(`[name="` + name + `"]`) }
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/payout-links/new"),
		chromedp.WaitVisible(field("amount")),
	)
	// The card's first visible row sits at its padding (24px): the hidden inputs before it and
	// the empty error slot leave no band.
	gap := `(() => { const f = document.querySelector('#payout-link-form');
		const first = [...f.children].find(e => e.offsetParent !== null);
		return first.getBoundingClientRect().top - f.getBoundingClientRect().top; })()`
	if px, err := chromedp.Run(tab, chromedp.Evaluate[float64](gap)); err != nil || px != 24 {
		t.Errorf("the form's first row is %vpx below the card's top (%v), want 24", px, err)
	}
	browser.Run(t, tab,
		chromedp.SendKeys(field("amount"), "12.345"),
		chromedp.SendKeys(field("payee.email"), "nope"),
		chromedp.SendKeys(field("payee.phone_number"), "12"),
		chromedp.SendKeys(field("metadata"), "{oops"),
		chromedp.Click(chromedp.CSS(`#payout-link-form button[type="submit"]`)),
		chromedp.WaitVisible(`#field-amount-error`),
	)
	browser.Screenshot(t, tab, "payout-link-problems")

	tests := []struct{ id, want string }{
		{"field-amount-error", "Use at most two decimals."},
		{"field-payee.email-error", "Enter an email address like name@example.com."},
		{"field-payee.phone_number-error", "Enter a valid phone number, like (415) 513-2552, or one of another country with its code, like +44 20 7946 0958."},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`[id="`+tc.id+`"]`)))
			if err != nil || got != tc.want {
				t.Errorf("%s says %q (%v), want %q", tc.id, got, err, tc.want)
			}
		})
	}
	if problem, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`[id="field-metadata-error"]`))); err != nil || problem == "" {
		t.Errorf("metadata shows no problem: %q, %v", problem, err)
	}
	if typed, err := chromedp.Run(tab, chromedp.Value(field("payee.email"))); err != nil || typed != "nope" {
		t.Errorf("the typed email came back as %q (%v), want it kept", typed, err)
	}
}

// browserSignedIn serves the dashboard on a local port and signs a new operator with role in, in
// a new Chromium tab; it returns the tab and the dashboard's origin.
func (h *harness) browserSignedIn(role dashstore.Role) (context.Context, string) {
	h.t.Helper()
	op, password := h.addOperator(string(role)+"@example.com", role)
	origin := h.serve()

	tab := browser.New(h.t)
	browserSignIn(h.t, tab, origin, op.Email, password)
	return tab, origin
}

// browserSignIn signs the browser of tab in at origin.
func browserSignIn(t testing.TB, tab context.Context, origin, email, password string) {
	t.Helper()
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/login"),
		chromedp.SendKeys(chromedp.CSS(`[name="email"]`), email),
		chromedp.SendKeys(chromedp.CSS(`[name="password"]`), password),
		chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)),
		// The signed-in layout, not the login page still showing while the sign-in is sent.
		chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)),
	)
}

// textOf is the text of the first element of tab's page that sel matches; t fails without one.
func textOf(t testing.TB, tab context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// wantTexts fails t for each of want that got, what the page's what says, does not hold.
func wantTexts(t testing.TB, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s says %q, want %q in it", what, got, w)
		}
	}
}

// exportOf fetches the file the page's Export link gives, with the page's session, as a click
// would save it: its rows after the header, and each column's index by the header's name.
func exportOf(t testing.TB, tab context.Context) ([][]string, map[string]int) {
	t.Helper()
	body, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`fetch(document.querySelector('[data-testid="export"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("the export has %d rows (%v):\n%s", len(rows), err, body)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	return rows[1:], col
}
