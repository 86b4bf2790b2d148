package handlers_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/browser"
)

// TestBrowserSearchFindsAUser: in Chromium, "/" on any page focuses the header's search, typing
// a name suggests the user, and the suggestion opens the user's page. A "/" typed in a field
// stays in the field. On the public API, which has no search, the dashboard finds the user among
// the newest users itself.
func TestBrowserSearchFindsAUser(t *testing.T) {
	browser.SkipShort(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { browserSearchFindsAUser(t, newHarnessWith(t, harnessSetup{public: b.public})) })
	}
}

func browserSearchFindsAUser(t *testing.T, h *harness) {
	maria := h.createUser("Maria", "López")
	h.createUser("Other", "Person")
	tab, origin := h.browserSignedIn(dashstore.RoleSupport)
	focused := `document.activeElement && document.activeElement.id`

	browser.Run(t, tab,
		chromedp.Navigate(origin+"/payout-links"),
		chromedp.WaitVisible(chromedp.CSS(`#filter-q`)),
		chromedp.Click(chromedp.CSS(`#filter-q`)),
		chromedp.KeyEvent("/"),
	)
	if id, err := chromedp.Run(tab, chromedp.Evaluate[string](focused)); err != nil || id != "filter-q" {
		t.Errorf("after / typed in the links' search, %q has the focus (%v), want filter-q", id, err)
	}
	if typed, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(`#filter-q`))); err != nil || typed != "/" {
		t.Errorf("the links' search holds %q (%v), want the / typed", typed, err)
	}

	browser.Run(t, tab,
		chromedp.Navigate(origin+"/users"),
		chromedp.WaitVisible(chromedp.CSS(`#global-search`)),
		chromedp.KeyEvent("/"),
	)
	if id, err := chromedp.Run(tab, chromedp.Evaluate[string](focused)); err != nil || id != "global-search" {
		t.Fatalf("after / on the page, %q has the focus (%v), want global-search", id, err)
	}
	// The suggestions are a combobox's listbox: the first option is Maria, reached by ArrowDown
	// and opened by Enter.
	suggestion := chromedp.CSS(`#search-suggestions [role="option"][data-href="/users/` + maria.ID + `"]`)
	browser.Run(t, tab,
		chromedp.KeyEvent("maria"),
		chromedp.WaitVisible(suggestion),
		chromedp.KeyEvent(kb.ArrowDown),
	)
	browser.Screenshot(t, tab, "search-suggestions")
	wantCombobox(t, tab, "global-search", "true", "/users/"+maria.ID)
	browser.Axe(t, tab)
	browser.Run(t, tab, chromedp.KeyEvent(kb.Escape))
	wantCombobox(t, tab, "global-search", "false", "")
	browser.Run(t, tab,
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#wallet`)),
	)
	if path, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname`)); err != nil || path != "/users/"+maria.ID {
		t.Errorf("Enter on the suggestion opened %q (%v), want Maria's page", path, err)
	}
	if errs := browser.ConsoleErrors(tab); len(errs) > 0 {
		t.Errorf("the console shows errors: %v", errs)
	}
}

// wantCombobox checks a combobox's state: whether its list is open, and the data-href or
// data-value of its active option ("" for none), which aria-activedescendant names.
func wantCombobox(t *testing.T, tab context.Context, id, expanded, active string) {
	t.Helper()
	state, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`(() => {
		const input = document.getElementById(`+"`"+id+"`"+`);
		const option = document.getElementById(input.getAttribute("aria-activedescendant") || "");
		const list = document.getElementById(input.getAttribute("aria-controls"));
		return [input.getAttribute("aria-expanded"),
			option ? (option.getAttribute("data-href") || option.getAttribute("data-value")) : "",
			option ? option.getAttribute("aria-selected") : "",
			option && list && list.contains(option) ? "in list" : ""];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if state[0] != expanded || state[1] != active || (active != "" && (state[2] != "true" || state[3] != "in list")) {
		t.Errorf("combobox %s: aria-expanded %q, active option %q (aria-selected %q, %s); want %q and %q",
			id, state[0], state[1], state[2], state[3], expanded, active)
	}
}

// TestBrowserPayeePicker: in Chromium, the payee filter and the payout link form's picker take
// arrows, Enter and Escape; the filter also takes what was typed, pressed Enter on, when it
// finds one payee.
func TestBrowserPayeePicker(t *testing.T) {
	browser.SkipShort(t)
	h := newHarness(t)
	lovelace, byron := h.createUser("Ada", "Lovelace"), h.createUser("Ada", "Byron")
	grace := h.createUser("Grace", "Hopper")
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	value := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(sel)))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	// The payout link form: choosing sets the payee, by name, and sends nothing yet.
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/payout-links/new"),
		chromedp.WaitVisible(chromedp.CSS(`#field-user`)),
		chromedp.Click(chromedp.CSS(`#field-user`)),
		chromedp.KeyEvent("ada"),
		chromedp.WaitVisible(chromedp.CSS(`#field-user-options [data-value="`+lovelace.ID+`"]`)),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.ArrowDown),
	)
	newest := byron.ID // lists are newest first: Byron, then Lovelace
	wantCombobox(t, tab, "field-user", "true", lovelace.ID)
	browser.Run(t, tab, chromedp.KeyEvent(kb.ArrowUp))
	wantCombobox(t, tab, "field-user", "true", newest)
	browser.Axe(t, tab)
	browser.Run(t, tab, chromedp.KeyEvent(kb.Enter))
	wantCombobox(t, tab, "field-user", "false", "")
	if got, id := value(`#field-user`), value(`#payout-link-form [name="user_id"]`); got != "Ada Byron" || id != byron.ID {
		t.Errorf("after Enter the picker shows %q with id %q, want Ada Byron, %s", got, id, byron.ID)
	}
	if path, _ := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname`)); path != "/payout-links/new" {
		t.Errorf("choosing a payee left the form for %s", path)
	}
	browser.Run(t, tab,
		chromedp.KeyEvent("x"), // typing again forgets the choice
		chromedp.KeyEvent(kb.Escape),
	)
	if id := value(`#payout-link-form [name="user_id"]`); id != "" {
		t.Errorf("after more typing the picker still holds %q", id)
	}

	// The payee filter: text alone, sent with Enter, finds the one payee it names.
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/transfers"),
		chromedp.WaitVisible(chromedp.CSS(`#filter-user`)),
		chromedp.Click(chromedp.CSS(`#filter-user`)),
		chromedp.KeyEvent("hopper grace"),
		chromedp.WaitVisible(chromedp.CSS(`#filter-user-options [data-value="`+grace.ID+`"]`)),
		chromedp.KeyEvent(kb.Escape),
		chromedp.KeyEvent(kb.Enter),
		// The address changes before the list is swapped in: wait for the picker the answer brings,
		// which no longer holds the text as typed.
		chromedp.Poll[chromedp.Void](`new URLSearchParams(location.search).get("user") === "hopper grace" &&
			document.querySelector('#filter-user')?.value !== "hopper grace"`),
	)
	if got, id := value(`#filter-user`), value(`#transfers-body [name="user_id"]`); got != "Grace Hopper" || id != grace.ID {
		t.Errorf("the filter sent as typed shows %q with id %q, want Grace Hopper, %s", got, id, grace.ID)
	}
	if errs := browser.ConsoleErrors(tab); len(errs) > 0 {
		t.Errorf("the console shows errors: %v", errs)
	}
}

// TestBrowserPayeeIndexPicker: in Chromium, on the strict stand-in for the public Dots API with
// over a thousand users, the payout link form's picker suggests a payee older than the newest
// thousand by phone, and the link issued is for that payee.
func TestBrowserPayeeIndexPicker(t *testing.T) {
	browser.SkipShort(t)
	h := newHarnessWith(t, harnessSetup{public: true})
	olga := mustCreateUser(t, h, "Olga", "Older", "olga.older@example.com", "3125550177")
	seedUsers(t, h, 1000)
	h.deposit(100_00)
	tab, origin := h.browserSignedIn(dashstore.RoleOperations)
	browser.Run(t, tab,
		chromedp.Navigate(origin+"/payout-links/new"),
		chromedp.WaitVisible(chromedp.CSS(`#field-user`)),
		chromedp.SendKeys(chromedp.CSS(`#field-amount`), "10.00"),
		chromedp.Click(chromedp.CSS(`#field-user`)),
		chromedp.KeyEvent("(312) 555-0177"),
		chromedp.WaitVisible(chromedp.CSS(`#field-user-options [data-value="`+olga.ID+`"]`)),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.Enter),
	)
	if id, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(`#payout-link-form [name="user_id"]`))); err != nil || id != olga.ID {
		t.Fatalf("the picker holds %q (%v), want Olga %q", id, err, olga.ID)
	}
	browser.Run(t, tab,
		chromedp.Click(chromedp.CSS(`#payout-link-form button[type="submit"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#payout-link-form`)),
	)
	path, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := h.payouts.GetPayoutLink(context.Background(), path[len("/payout-links/"):])
	if err != nil {
		t.Fatal(err)
	}
	if deref(l.UserID) != olga.ID {
		t.Errorf("the link is for %q, want Olga %q", deref(l.UserID), olga.ID)
	}
}
