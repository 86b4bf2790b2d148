package demo

import (
	"context"
	"net/url"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// Page is a page type of the product, at one example URL.
type Page struct {
	Name      string // a file name: "transfers", "hosted-claim"
	Path      string // under the dashboard's origin, or the service's when Hosted
	Hosted    bool   // a payee's page, served by the service, no sign-in
	SignedOut bool   // seen by nobody signed in: the login page
}

// Pages lists every page type, one line each: add a line for a new page.
func (d *Demo) Pages() []Page {
	s := d.Seeded
	return []Page{
		{Name: "login", Path: "/login", SignedOut: true},
		{Name: "overview", Path: "/overview"},
		{Name: "users", Path: "/users"},
		{Name: "user", Path: paths.User(s.UserID)},
		{Name: "user-new", Path: "/users/new"},
		{Name: "user-compliance", Path: paths.Compliance(s.UserID, "")},
		{Name: "user-delete", Path: paths.UserDelete(s.UserID)},
		{Name: "payout-method-new", Path: paths.NewPayoutMethod(s.UserID, payouts.PlatformACH)},
		{Name: "transfers", Path: "/transfers"},
		{Name: "transfer", Path: paths.Transfer(s.TransferID)},
		{Name: "transactions", Path: "/transactions"},
		{Name: "transaction", Path: paths.Transaction(s.TransactionID)},
		{Name: "statement", Path: "/statement"},
		{Name: "payout-links", Path: "/payout-links"},
		{Name: "payout-link", Path: paths.PayoutLink(s.LinkID)},
		{Name: "payout-link-new", Path: paths.NewPayoutLink("")},
		{Name: "flows", Path: "/flows"},
		{Name: "flow", Path: paths.Flow(s.FlowID)},
		{Name: "flow-new", Path: "/flows/new"},
		{Name: "bulk", Path: paths.BulkNew()},
		{Name: "bulk-job", Path: paths.Bulk(s.BulkJobID)},
		{Name: "app-wallet", Path: "/app"},
		{Name: "webhooks", Path: "/webhooks"},
		{Name: "webhook", Path: "/webhooks/" + url.PathEscape(s.WebhookID)},
		{Name: "events", Path: "/events"},
		{Name: "operators", Path: "/operators"},
		{Name: "operator", Path: paths.Operator(s.OperatorID)},
		{Name: "audit", Path: "/audit"},
		{Name: "reconciliation", Path: "/reconciliation"},
		{Name: "approvals", Path: "/approvals"},
		{Name: "approval", Path: paths.Approval(s.ApprovalID)},
		{Name: "tax", Path: "/tax"},
		{Name: "sandbox-inbox", Path: "/sandbox/inbox"},
		{Name: "search", Path: "/search?q=" + url.QueryEscape(people[0][1])}, // the first payee's transfers too
		{Name: "error", Path: paths.Transaction(999_999_999)},
		{Name: "hosted-claim", Path: s.LinkURL[len(d.Hosted):], Hosted: true},
		{Name: "hosted-flow", Path: "/f/" + s.FlowID, Hosted: true},
		{Name: "hosted-error", Path: "/f/fl_unknown", Hosted: true},
	}
}

// Viewport is a screen size the pages are checked and shown at.
type Viewport struct {
	Width, Height int64
}

// Viewports are a laptop's and a phone's.
var Viewports = []Viewport{{1440, 900}, {390, 844}}

// Tour walks the pages in one browser tab, signing in and out as each page needs.
type Tour struct {
	d        *Demo
	tab      context.Context
	signedIn bool
}

// Tour returns a tour of the demo's pages in tab.
func (d *Demo) Tour(tab context.Context) *Tour { return &Tour{d: d, tab: tab} }

// Visit opens p at v with prefers-color-scheme set to scheme ("light" or "dark") and waits
// until it has loaded.
func (t *Tour) Visit(p Page, v Viewport, scheme string) error {
	if err := t.session(p); err != nil {
		return err
	}
	origin := t.d.URL
	if p.Hosted {
		origin = t.d.Hosted
	}
	return chromedp.Do(t.tab,
		chromedp.EmulateViewport(v.Width, v.Height),
		browser.ColorScheme(scheme),
		chromedp.Navigate(origin+p.Path),
		chromedp.WaitReady(chromedp.CSS("#main")),
	)
}

// session signs in before a dashboard page and out before the login page.
func (t *Tour) session(p Page) error {
	switch {
	case p.SignedOut && t.signedIn:
		t.signedIn = false
		return chromedp.Do(t.tab, chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
			_, err := cdp.Call(ctx, tt, network.ClearBrowserCookies, cdp.Empty{})
			return err
		}))
	case !p.SignedOut && !p.Hosted && !t.signedIn:
		t.signedIn = true
		return chromedp.Do(t.tab,
			chromedp.Navigate(t.d.URL+"/login"),
			chromedp.SendKeys(chromedp.CSS("#field-email"), AdminEmail),
			chromedp.SendKeys(chromedp.CSS("#field-password"), AdminPassword),
			chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)),
		)
	}
	return nil
}
