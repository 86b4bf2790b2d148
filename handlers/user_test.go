package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

func TestUsersListFullAndFragment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, _ := h.signedIn(dashstore.RoleSupport)

	empty := a.get("/users")
	wantStatus(t, empty, http.StatusOK)
	wantBody(t, empty, "No users yet", "Create the first payee")

	for i := range 30 {
		h.createUser(fmt.Sprintf("User%02d", i), "Paged")
	}
	h.createUser("Zed", "Searchable")

	full := a.get("/users")
	wantStatus(t, full, http.StatusOK)
	wantBody(t, full, "<!doctype html>", `role="search"`, `id="users-table"`, "Zed Searchable", "Older →")
	if strings.Contains(full.body, "New user") {
		t.Error("support sees the New user button")
	}

	frag := a.get("/users?q=zed", "HX-Request", "true")
	wantStatus(t, frag, http.StatusOK)
	if strings.Contains(frag.body, "<html") || strings.Contains(frag.body, `role="search"`) {
		t.Fatalf("htmx request got more than the table:\n%s", frag.body)
	}
	wantBody(t, frag, `id="users-table"`, "Zed Searchable")
	if strings.Contains(frag.body, "User00") {
		t.Error("the search did not narrow the table")
	}
	wantBody(t, a.get("/users?q=nobody-like-this"), "No users match", "Show all users")

	// Page forward and back with plain links, as without JavaScript.
	link := regexp.MustCompile(`href="(/users\?[^"]*(?:after|before)=[^"]+)"[^>]*>([^<]+)<`)
	names := regexp.MustCompile(`>(User\d\d|Zed) (?:Paged|Searchable)<`)
	page1 := names.FindAllStringSubmatch(full.body, -1)
	if len(page1) != 25 {
		t.Fatalf("page 1 has %d users, want 25", len(page1))
	}
	next := link.FindStringSubmatch(full.body)
	if next == nil || !strings.Contains(next[2], "Older") {
		t.Fatalf("no Older link on page 1")
	}
	page2 := a.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	if got := names.FindAllStringSubmatch(page2.body, -1); len(got) != 6 {
		t.Fatalf("page 2 has %d users, want 6", len(got))
	}
	prev := link.FindStringSubmatch(page2.body)
	if prev == nil || !strings.Contains(prev[2], "Newer") {
		t.Fatal("no Newer link on page 2")
	}
	back := a.get(strings.ReplaceAll(prev[1], "&amp;", "&"))
	if got := names.FindAllStringSubmatch(back.body, -1); len(got) != 25 || got[0][1] != page1[0][1] {
		t.Fatalf("back on page 1: %d users starting %v, want 25 starting %s", len(got), got[0], page1[0][1])
	}
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, op := h.signedIn(dashstore.RoleOperations)
	wantBody(t, a.get("/users/new"), `action="/users"`, `name="first_name"`)

	t.Run("form errors are re-rendered with 422", func(t *testing.T) {
		res := a.post("/users", url.Values{"email": {"ann@nowhere"}, "country_code": {"1"}, "phone_number": {"12"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Some fields need attention.", "Enter the first name.", "Enter the last name.", "Enter an email address like name@example.com.", "Enter a valid phone number, like (415) 513-2552, or one of another country with its code, like +44 20 7946 0958.", `value="ann@nowhere"`, `aria-invalid="true"`)
	})

	res := a.post("/users", url.Values{"first_name": {"Ann"}, "last_name": {"Lee"}, "email": {"ann@example.com"},
		"country_code": {"1"}, "phone_number": {"+1 (415) 555-3456"}})
	wantRedirect(t, res, "/users/")
	page := a.get(res.Header.Get("Location"))
	wantBody(t, page, "Created Ann Lee.", "Ann Lee", "ann@example.com", "(415) 555-3456 (US)", "$0.00", "No payout methods")

	entries, _, err := h.store.AuditLog(t.Context(), dashstore.AuditFilter{ObjectType: "user", Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].Action != "user.create" || entries[0].OperatorID != op.ID {
		t.Fatalf("audit = %+v, %v; want one user.create by the operator", entries, err)
	}

	t.Run("a taken email", func(t *testing.T) {
		res := a.post("/users", url.Values{"first_name": {"Ann"}, "last_name": {"Again"}, "email": {"ann@example.com"},
			"country_code": {"1"}, "phone_number": {"4155550124"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
	})
}

func TestUserPageActions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, _ := h.signedIn(dashstore.RoleOperations)
	u := h.createUser("Pat", "Payee")
	userURL := "/users/" + u.ID

	t.Run("payout method", func(t *testing.T) {
		form := a.get(userURL + "/payout-methods/new?platform=ach")
		wantBody(t, form, `name="routing_number"`, `name="account_type"`)
		venmo := a.get(userURL+"/payout-methods/new?platform=venmo", "HX-Request", "true")
		wantBody(t, venmo, `id="payout-method-form"`, `name="handle"`)
		if strings.Contains(venmo.body, "<html") {
			t.Error("the platform tab answered a whole page to htmx")
		}

		// The checksum is echoed as the operator types, before anything is submitted.
		wantBody(t, a.get(userURL+"/payout-methods/routing-number?routing_number=021000021", "HX-Request", "true"),
			"Valid routing number (ABA checksum matches)")
		wantBody(t, a.get(userURL+"/payout-methods/routing-number?routing_number=021000022", "HX-Request", "true"),
			"Not a valid routing number: it must be 9 digits")

		res := a.post(userURL+"/payout-methods", url.Values{"platform": {"ach"}, "routing_number": {"021000022"},
			"account_number": {"12"}, "account_type": {"checking"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "is not a valid 9-digit ABA routing number", "must be 4 to 17 digits")
		if strings.Contains(res.body, `value="12"`) {
			t.Error("the account number was sent back to the browser")
		}

		res = a.post(userURL+"/payout-methods", url.Values{"platform": {"ach"}, "routing_number": {"021000021"},
			"account_number": {"123456789"}, "account_type": {"checking"}, "is_default": {"true"}})
		wantRedirect(t, res, userURL)
		page := a.get(userURL)
		wantBody(t, page, "Bank account (ACH)", "6789", "Default")
		if strings.Contains(page.body, "123456789") {
			t.Error("the full account number is on the page")
		}
	})

	t.Run("move money", func(t *testing.T) {
		res := a.post(userURL+"/transfers", url.Values{"direction": {"to_user"}, "amount": {"12.345"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Use at most two decimals.")

		// A sign would reverse the direction chosen apart; zero is the service's to refuse.
		res = a.post(userURL+"/transfers", url.Values{"direction": {"to_user"}, "amount": {"-5"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Enter the amount without a sign; choose the direction below.")
		res = a.post(userURL+"/transfers", url.Values{"direction": {"to_user"}, "amount": {"0"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "must not be zero")

		res = a.post(userURL+"/transfers", url.Values{"direction": {"to_user"}, "amount": {"25.00"}})
		wantStatus(t, res, http.StatusUnprocessableEntity) // the app has no money yet
		wantBody(t, res, `id="move-money"`, `role="alert"`)

		wantRedirect(t, a.post("/app/deposits", url.Values{"amount": {"1,000.00"}}), "/app")
		wantBody(t, a.get("/app"), "Deposited $1,000.00.", "$1,000.00", "Deposit")

		page := a.get(userURL)
		key := regexp.MustCompile(`name="idempotency_key" value="([^"]+)"`).FindStringSubmatch(page.body)
		if key == nil {
			t.Fatal("no idempotency key in the form")
		}
		form := url.Values{"direction": {"to_user"}, "amount": {"25.00"}, "idempotency_key": {key[1]}}
		wantRedirect(t, a.post(userURL+"/transfers", form), userURL)
		wantRedirect(t, a.post(userURL+"/transfers", form), userURL) // a double submit moves it once
		page = a.get(userURL)
		wantBody(t, page, "Moved $25.00 to the user.", `data-testid="wallet-amount"><span class="tabular-nums">$25.00</span>`, "App to user")
		got, err := h.payouts.GetUser(t.Context(), u.ID)
		if err != nil || got.Wallet.Amount != 2500 {
			t.Fatalf("wallet = %v, %v; want $25.00", got.Wallet.Amount, err)
		}
	})

	t.Run("tax form", func(t *testing.T) {
		wantBody(t, a.get(userURL+"/compliance?form=w8ben", "HX-Request", "true"), `name="w8ben.signature.consent"`)
		res := a.post(userURL+"/compliance", url.Values{"kind": {"w9"}, "w9.entity_type": {"individual"},
			"w9.first_name": {"Pat"}, "w9.tin": {"12-34"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "must be 9 digits", `id="field-w9.address.city-error"`)
		form := url.Values{"kind": {"w9"}, "w9.entity_type": {"individual"}, "w9.first_name": {"Pat"}, "w9.last_name": {"Payee"},
			"w9.date_of_birth": {"1990-04-01"}, "w9.tin": {"123456789"}, "w9.address.line_1": {"1 Main St"},
			"w9.address.city": {"Springfield"}, "w9.address.state": {"IL"}, "w9.address.country": {"US"}, "w9.address.postcode": {"62701"}}
		wantRedirect(t, a.post(userURL+"/compliance", form), userURL)
		got, err := h.payouts.GetUser(t.Context(), u.ID)
		if err != nil || !got.Compliance.TaxIDCollected {
			t.Fatalf("compliance = %+v, %v", got.Compliance, err)
		}
	})

	t.Run("W-8BEN with a treaty claim", func(t *testing.T) {
		form := url.Values{"kind": {"w8ben"}, "w8ben.name": {"Pat Payee"}, "w8ben.citizenship_country": {"GB"},
			"w8ben.date_of_birth": {"1990-04-01"}, "w8ben.tin": {"912701234"}, "w8ben.address.line_1": {"1 High St"},
			"w8ben.address.city": {"London"}, "w8ben.address.state": {"London"}, "w8ben.address.country": {"GB"},
			"w8ben.address.postcode": {"N1"}, "w8ben.signature.consent": {"true"}, "w8ben.signature.name": {"Pat Payee"},
			"w8ben.signature.email": {"pat@example.com"}, "w8ben.tax_treaty_country": {"GB"},
			"w8ben.tax_treaty_citation": {"Article 11"}, "w8ben.tax_treaty_rate": {"fifteen"}, "w8ben.tax_treaty_income_type": {"interest1"}}
		res := a.post(userURL+"/compliance", form)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, `id="field-w8ben.tax_treaty_rate-error"`, `name="w8ben.tax_treaty_citation"`, `value="Article 11"`)
		form.Set("w8ben.tax_treaty_rate", "0.15")
		wantRedirect(t, a.post(userURL+"/compliance", form), userURL)
		filed, err := h.env.Service.TaxForm(t.Context(), h.env.AppID, u.ID)
		if err != nil || filed.W8BEN == nil {
			t.Fatalf("the form filed = %+v, %v", filed, err)
		}
		if w := filed.W8BEN; w.TIN != "912701234" || w.TaxTreatyRate == nil || *w.TaxTreatyRate != 0.15 ||
			w.TaxTreatyIncomeType != "interest1" || w.TaxTreatyCitation != "Article 11" || w.ForeignTaxID != "" {
			t.Errorf("the W-8BEN filed = %+v", *w)
		}
	})

	t.Run("verification", func(t *testing.T) {
		wantRedirect(t, a.post(userURL+"/verification-token", nil), userURL)
		msg, ok := h.env.Inbox.Last(u.PhoneNumber.String())
		if !ok {
			t.Fatal("no message sent to the user")
		}
		token := regexp.MustCompile(`\d{6}`).FindString(msg.Body)
		res := a.post(userURL+"/verify", url.Values{"token": {"000000"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "That code is not the one we sent. Check the latest message and try again.", `id="field-token-error"`)
		wantRedirect(t, a.post(userURL+"/verify", url.Values{"token": {token}}), userURL)
		wantBody(t, a.get(userURL), "The user is verified.", "Verified")
	})

	t.Run("delete", func(t *testing.T) {
		wantBody(t, a.get(userURL+"/delete"), "Delete Pat Payee?")
		res := a.post(userURL+"/delete", nil)
		wantStatus(t, res, http.StatusUnprocessableEntity) // money in the wallet
		wantRedirect(t, a.post(userURL+"/transfers", url.Values{"direction": {"from_user"}, "amount": {"25"}}), userURL)
		wantRedirect(t, a.post(userURL+"/delete", nil), "/users")
		wantStatus(t, a.get(userURL), http.StatusNotFound)
	})

	entries, _, err := h.store.AuditLog(t.Context(), dashstore.AuditFilter{ObjectType: "user", ObjectID: u.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	want := "user.delete transfer.create user.verify user.send_verification_token compliance.submit compliance.submit transfer.create transfer.create payout_method.add"
	if strings.Join(actions, " ") != want {
		t.Errorf("audit actions = %s\nwant %s", strings.Join(actions, " "), want)
	}
}

func TestSupportCannotMoveMoney(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.createUser("Sue", "Seen")
	support, _ := h.signedIn(dashstore.RoleSupport)
	page := support.get("/users/" + u.ID)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, "Sue Seen", "Wallet")
	for _, hidden := range []string{`id="move-money"`, "Delete user", "Add payout method", "Send code", "Submit tax form"} {
		if strings.Contains(page.body, hidden) {
			t.Errorf("support sees %q", hidden)
		}
	}
	for _, link := range []string{`href="/app"`, `href="/operators"`, `href="/audit"`} {
		if strings.Contains(page.body, link) {
			t.Errorf("support's navigation has %s", link)
		}
	}
}
