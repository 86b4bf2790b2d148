package handlers_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/cmd/screenshots/demo"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// listLayout is what a page's tables look like in the browser: the page's width and, for each
// table shown, the width of its box against the box's own and where the cells of its first row
// sit, with the column heading each cell is under and the label it carries.
type listLayout struct {
	PageWidth int64 `json:"pageWidth"`
	Tables    []struct {
		Name        string `json:"name"`
		ScrollWidth int64  `json:"scrollWidth"`
		BoxWidth    int64  `json:"boxWidth"`
		RowDisplay  string `json:"rowDisplay"`
		Cells       []struct {
			Heading string  `json:"heading"`
			Label   string  `json:"label"`
			Left    float64 `json:"left"`
			Right   float64 `json:"right"`
		} `json:"cells"`
	} `json:"tables"`
}

// readListLayout measures the tables of the page shown in #main.
const readListLayout = `(() => {
	const tables = [...document.querySelectorAll('#main table')].filter(t => t.checkVisibility()).map(t => {
		const headings = [...(t.tHead ? t.tHead.rows[0].cells : [])].map(c => c.textContent.trim());
		const row = [...t.tBodies].flatMap(b => [...b.rows]).find(r => r.checkVisibility() && r.cells.length > 1);
		const box = t.parentElement;
		return {
			name: (t.caption ? t.caption.textContent.trim() + ': ' : '') + headings.join('/'),
			scrollWidth: box.scrollWidth, boxWidth: box.clientWidth,
			rowDisplay: row ? getComputedStyle(row).display : '',
			cells: row ? [...row.cells].map(c => {
				// The column a cell starts in counts the columns the cells before it span.
				const column = [...row.cells].slice(0, c.cellIndex).reduce((n, b) => n + b.colSpan, 0);
				const r = c.getBoundingClientRect();
				return {shown: c.checkVisibility(), heading: c.colSpan > 1 || c.tagName === 'TH' ? '' : headings[column] || '',
					label: c.dataset.label || '', left: r.left, right: r.right};
			}).filter(c => c.shown) : [],
		};
	});
	return {pageWidth: document.documentElement.scrollWidth, tables};
})()`

// TestBrowserListsOnPhone: at a phone's 390 px every dashboard page with a list, for the demo's
// admin who sees them all, shows each row as a card: the page and every table fit the width
// (nothing scrolls sideways, in the page or inside a table's card), every cell of a table's first
// row (its Amount and Status among them) is inside the window, and each cell carries its
// column's heading as its label, which the card shows and a screen reader reads. From 640 px on,
// rows are table rows again. Each page's screenshot is saved with the test's artifacts.
func TestBrowserListsOnPhone(t *testing.T) {
	tab, d := startDemo(t)
	tour := d.Tour(tab)
	pages := append(d.Pages(), demo.Page{Name: "tax", Path: "/tax"})
	measure := func(t *testing.T) listLayout {
		t.Helper()
		l, err := chromedp.Run(tab, chromedp.Evaluate[listLayout](readListLayout))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	lists := 0
	for _, p := range pages {
		if p.Hosted || p.SignedOut {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			if err := tour.Visit(p, demo.Viewport{Width: 390, Height: 844}, "light"); err != nil {
				t.Fatal(err)
			}
			l := measure(t)
			if len(l.Tables) > 0 {
				lists++
			}
			wantFitsPhone(t, l)
			browser.Screenshot(t, tab, "390")
		})
	}
	if lists < 15 {
		t.Errorf("%d pages showed a list, want the dashboard's lists (15 or more)", lists)
	}

	// What a screen reader reads of the first transfer's amount on a phone: its label, then the
	// amount.
	t.Run("transfers/390/read out", func(t *testing.T) {
		if err := tour.Visit(demo.Page{Name: "transfers", Path: "/transfers"}, demo.Viewport{Width: 390, Height: 844}, "light"); err != nil {
			t.Fatal(err)
		}
		// The cell under Amount in the transfers' table, marked for the query below.
		found, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(() => {
			for (const t of document.querySelectorAll('#main table')) {
				const column = [...(t.tHead ? t.tHead.rows[0].cells : [])].findIndex(th => th.textContent.trim() === 'Amount');
				const row = t.tBodies[0] && t.tBodies[0].rows[0];
				if (column >= 0 && row && row.cells[column]) { row.cells[column].setAttribute('data-probe', ''); return true; }
			}
			return false;
		})()`))
		if err != nil || !found {
			t.Fatalf("no Amount column (%v)", err)
		}
		nodes, err := chromedp.Run(tab, chromedp.Nodes(chromedp.CSS(`[data-probe]`)))
		if err != nil {
			t.Fatal(err)
		}
		fetchRelatives := false
		tree, err := chromedp.Call(tab, accessibility.GetPartialAXTree,
			accessibility.GetPartialAXTreeParams{BackendNodeID: nodes[0].BackendNodeID, FetchRelatives: &fetchRelatives})
		if err != nil || len(tree.Nodes) == 0 || tree.Nodes[0].Name == nil {
			t.Fatalf("the amount cell's accessibility node: %v", err)
		}
		if name := string(tree.Nodes[0].Name.Value); !strings.HasPrefix(name, `"Amount`) {
			t.Errorf("a screen reader reads the first amount as %s, want its label Amount first", name)
		}
	})

	t.Run("640", func(t *testing.T) {
		if err := tour.Visit(demo.Page{Name: "transfers", Path: "/transfers"}, demo.Viewport{Width: 640, Height: 900}, "light"); err != nil {
			t.Fatal(err)
		}
		for _, table := range measure(t).Tables {
			if table.RowDisplay != "table-row" {
				t.Errorf("table %s shows its rows as %q at 640px, want table rows", table.Name, table.RowDisplay)
			}
		}
	})
}

// wantFitsPhone fails t where a page measured at 390 px does not fit a phone: the page or a
// table scrolls sideways, a cell of a table's first row is outside the window, or a cell does
// not carry its column's heading as its label.
func wantFitsPhone(t *testing.T, l listLayout) {
	t.Helper()
	if l.PageWidth > 390 {
		t.Errorf("the page is %dpx wide, want at most 390", l.PageWidth)
	}
	for _, table := range l.Tables {
		if table.ScrollWidth > table.BoxWidth {
			t.Errorf("table %s is %dpx wide in its %dpx card: it scrolls sideways", table.Name, table.ScrollWidth, table.BoxWidth)
		}
		for _, c := range table.Cells {
			if c.Left < 0 || c.Right > 390 {
				t.Errorf("table %s: the first row's %q spans %.0f–%.0fpx, outside the 390px window", table.Name, c.Heading, c.Left, c.Right)
			}
			if c.Heading != "" && c.Label != c.Heading {
				t.Errorf("table %s: the first row's cell under %q is labelled %q", table.Name, c.Heading, c.Label)
			}
		}
	}
}

// TestBrowserListsOnPhoneOnPublicAPI: the tour of TestBrowserListsOnPhone at 390 px, on a
// dashboard on the strict stand-in for the public API (the demo runs on our service only), for
// the list pages that exist there: each fits the phone as on our service. Statements and stats
// are extensions of our service's, so Statement and the Overview's chart are not lists here.
func TestBrowserListsOnPhoneOnPublicAPI(t *testing.T) {
	browser.SkipShort(t)
	h := newHarnessWith(t, harnessSetup{public: true})
	u := h.fundedUser("Ola", "Phone", 50_00)
	if _, err := h.payouts.CreatePayout(t.Context(), payouts.CreatePayoutRequest{UserID: u.ID, Amount: 20_00,
		Platform: payouts.PlatformDefault}); err != nil {
		t.Fatal(err)
	}
	h.deposit(100_00)
	h.refusedPayout("Bea", true, false)
	h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 30_00, Payee: &payouts.Payee{Email: u.Email}})
	tab, origin := h.browserSignedIn(dashstore.RoleAdmin)
	browser.Run(t, tab, chromedp.EmulateViewport(390, 844))
	lists := 0
	for _, path := range []string{"/users", "/transfers", "/transactions", "/payout-links", "/app", "/audit", "/operators",
		"/approvals", "/events", "/webhooks", "/reconciliation", "/tax"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			browser.Run(t, tab, chromedp.Navigate(origin+path), chromedp.WaitVisible(chromedp.CSS(`#main`)))
			l, err := chromedp.Run(tab, chromedp.Evaluate[listLayout](readListLayout))
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Tables) > 0 {
				lists++
			}
			wantFitsPhone(t, l)
			browser.Screenshot(t, tab, "390")
		})
	}
	if lists < 6 {
		t.Errorf("%d pages showed a list, want at least users, transfers, transactions, payout links, audit and operators", lists)
	}
}

// TestBrowserPerPageFits: on every list with a page size, on a laptop and a phone, the Per page
// choice is at least as wide as the browser makes it when left to fit its options and its arrow,
// so none of them, "100" the widest, is clipped.
func TestBrowserPerPageFits(t *testing.T) {
	tab, d := startDemo(t)
	tour := d.Tour(tab)
	type size struct {
		Width float64 `json:"width"`
		Need  float64 `json:"need"`
	}
	// The select is measured as laid out, then with its width left to the browser; its own width
	// is put back.
	const measure = `[...document.querySelectorAll('form[role="search"] select[name="limit"]')].filter(s => s.checkVisibility()).map(s => {
		const width = s.getBoundingClientRect().width;
		s.style.width = 'max-content';
		const need = s.getBoundingClientRect().width;
		s.style.width = '';
		return {width, need};
	})`
	lists := 0
	for _, p := range d.Pages() {
		if p.Hosted || p.SignedOut {
			continue
		}
		for _, v := range demo.Viewports {
			t.Run(p.Name+"/"+strconv.FormatInt(v.Width, 10), func(t *testing.T) {
				if err := tour.Visit(p, v, "light"); err != nil {
					t.Fatal(err)
				}
				selects, err := chromedp.Run(tab, chromedp.Evaluate[[]size](measure))
				if err != nil {
					t.Fatal(err)
				}
				lists += len(selects)
				for _, s := range selects {
					if s.Width < s.Need {
						t.Errorf("Per page is %.0fpx wide, its options need %.0fpx", s.Width, s.Need)
					}
				}
			})
		}
	}
	if lists < 4 {
		t.Errorf("Per page showed %d times, want it on transfers and transactions at both widths", lists)
	}
}
