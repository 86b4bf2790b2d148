package handlers_test

import (
	"context"
	"encoding/csv"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
	"github.com/disburse/disburse/payouts"
)

// TestBrowserManagerReconcilesAMonth: in Chromium, a manager narrows the transfers to a month,
// to a payee picked by typing part of her name, and to an amount range; the page counts and
// totals the set, and the export of the same filter holds her name intact and sums to the
// page's totals.
func TestBrowserManagerReconcilesAMonth(t *testing.T) {
	browser.SkipShort(t)
	h := newHarness(t)
	ctx := context.Background()
	op, password := h.addOperator("manager@example.com", dashstore.RoleManager)
	zoe := h.fundedUser("Zoë", "García-López", 100_00)
	h.fundedUser("Bob", "Other", 20_00)
	h.deposit(100_00)
	for _, cents := range []int64{-12_34, -56_78, 30_00} {
		if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: zoe.ID, Amount: cents}); err != nil {
			t.Fatal(err)
		}
	}
	origin := h.serve()

	// The month the service's transfers were made in (the service runs on the real clock).
	now := time.Now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	page := browser.New(t)
	read := func(sel string) string {
		t.Helper()
		got, err := chromedp.Run(page, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return got
	}
	counted := func(n string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="summary-count"]')?.textContent === '` + n + `'`)
	}
	field := func(name string) chromedp.CSS { return chromedp.CSS(`#transfers-body [name="` + name + `"]`) }
	browser.Run(t, page,
		chromedp.Navigate(origin+"/login"),
		chromedp.SendKeys(chromedp.CSS(`[name="email"]`), op.Email),
		chromedp.SendKeys(chromedp.CSS(`[name="password"]`), password),
		chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)),
		chromedp.Navigate(origin+"/transfers"),
		counted("8"), // 3 deposits, 2 fundings, Zoë's 3
		chromedp.SendKeys(chromedp.CSS(`#filter-user`), "garcía"),
		chromedp.WaitVisible(chromedp.CSS(`#filter-user-options [data-value="`+zoe.ID+`"]`)),
		chromedp.Click(chromedp.CSS(`#filter-user-options [data-value="`+zoe.ID+`"]`)),
		counted("4"), // her funding and her 3
		chromedp.SetValue(field("from"), first.Format(time.DateOnly)),
		chromedp.SetValue(field("to"), last.Format(time.DateOnly)),
		chromedp.SetValue(field("min"), "10"),
		chromedp.SetValue(field("max"), "60"),
		chromedp.Click(chromedp.CSS(`#transfers-body form button[type="submit"]`)),
		counted("3"), // $12.34 and $56.78 to her, $30.00 back from her
	)
	browser.Screenshot(t, page, "transfers-filtered")
	moneyIn, moneyOut := read(`[data-testid="summary-in"]`), read(`[data-testid="summary-out"]`)
	if moneyIn != "$30.00" || moneyOut != "$69.12" {
		t.Errorf("the page totals in %s, out %s; want $30.00 and $69.12", moneyIn, moneyOut)
	}
	if got := read(`#transfers-body table:not([data-testid="by-type"]) tbody`); strings.Count(got, "Zoë García-López") != 3 {
		t.Errorf("the rows do not all name Zoë García-López:\n%s", got)
	}

	body, err := chromedp.Run(page, chromedp.Evaluate[string](
		`fetch(document.querySelector('[data-testid="export"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("the export has %d rows (%v):\n%s", len(rows), err, body)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	sums := map[string]payouts.Money{}
	for _, r := range rows[1:] {
		if r[col["payee_name"]] != "Zoë García-López" || r[col["payee_email"]] != zoe.Email {
			t.Errorf("export row names %q <%s>", r[col["payee_name"]], r[col["payee_email"]])
		}
		m, err := payouts.ParseDollars(r[col["amount"]])
		if err != nil {
			t.Fatal(err)
		}
		sums[r[col["direction"]]] += m
	}
	if sums["in"].String() != moneyIn || sums["out"].String() != moneyOut {
		t.Errorf("the export sums in %v, out %v; the page says %s and %s", sums["in"], sums["out"], moneyIn, moneyOut)
	}
}

// serve starts the dashboard on a free local port until the test ends and returns its origin,
// for a browser to open.
func (h *harness) serve() string {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	go h.srv.App.Listener(ln)
	h.t.Cleanup(func() { h.srv.App.Shutdown() })
	return "http://" + ln.Addr().String()
}
