package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

func TestPayoutLinksListAndSearch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	support, _ := h.signedIn(dashstore.RoleSupport)
	empty := support.get("/payout-links")
	wantStatus(t, empty, http.StatusOK)
	wantBody(t, empty, "No payout links yet")
	if strings.Contains(empty.body, `href="/payout-links/new"`) {
		t.Error("support, who may not issue links, sees the New payout link button")
	}

	h.deposit(1000_00)
	var made []*payouts.PayoutLink
	for i := range 30 {
		made = append(made, h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: int64(100 + i),
			Payee: &payouts.Payee{FirstName: "Pay", LastName: "Ee", Email: "payee" + string(rune('a'+i%26)) + "@example.com"}}))
	}
	target := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 42_00, Memo: "refund for order 17",
		Payee: &payouts.Payee{FirstName: "Zoe", LastName: "Zed", Email: "zoe.zed@example.com", PhoneNumber: "4155550199"}})
	if _, err := h.payouts.CancelPayoutLink(t.Context(), made[0].ID); err != nil {
		t.Fatal(err)
	}

	full := support.get("/payout-links")
	wantBody(t, full, "<!doctype html>", `role="search"`, `id="payout-links-table"`, "Zoe Zed", "$42.00", "Older →")
	if n := len(ids(full)); n != 25 {
		t.Errorf("page 1 has %d links, want 25", n)
	}
	out, back := support.walkPages("/payout-links", true)
	var want []string
	want = append(want, target.ID)
	for i := len(made) - 1; i >= 0; i-- {
		want = append(want, made[i].ID)
	}
	wantPagesBackAndForth(t, out, back, want, 25)

	for _, search := range []string{"zoe.zed@example.com", "ZOE.ZED", "4155550199", "order 17"} {
		res := support.htmxGet("/payout-links?q=" + url.QueryEscape(search))
		if got := ids(res); len(got) != 1 || got[0] != target.ID {
			t.Errorf("search %q found %v, want the one link", search, got)
		}
	}
	if got := ids(support.htmxGet("/payout-links?status=canceled")); len(got) != 1 || got[0] != made[0].ID {
		t.Errorf("status canceled: %v", got)
	}
	wantBody(t, support.get("/payout-links?q=nobody-at-all"), "No payout links match", "Show all payout links")
}

func TestCreatePayoutLink(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	u := h.createUser("Uma", "User")

	form := ops.get("/payout-links/new?user=" + u.ID)
	wantStatus(t, form, http.StatusOK)
	for _, field := range []string{"amount", "user_id", "payee.first_name", "payee.last_name", "payee.email",
		"payee.country_code", "payee.phone_number", "delivery.method", "delivery.message", "memo", "tax_exempt",
		"force_collect_compliance_information", "payout_fee_party", "metadata", "idempotency_key", "redirect_url"} {
		wantBody(t, form, `name="`+field+`"`)
	}
	for _, step := range payouts.StepNames {
		if step != payouts.StepPayout {
			wantBody(t, form, `name="additional_steps.`+step+`"`)
		}
	}
	wantBody(t, form, `value="`+u.ID+`"`, `value="Uma User"`) // chosen, and shown by name

	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"no amount", url.Values{}, http.StatusUnprocessableEntity, []string{`id="field-amount-error"`}},
		{"bad email", url.Values{"amount": {"10"}, "payee.email": {"nope"}}, http.StatusUnprocessableEntity,
			[]string{`id="field-payee.email-error"`, "Enter an email address like name@example.com.", `value="nope"`}},
		{"sms without a phone", url.Values{"amount": {"10"}, "delivery.method": {"sms"}}, http.StatusUnprocessableEntity,
			[]string{`id="field-payee.phone_number-error"`, "is required to deliver by sms"}},
		{"redirect without its URL", url.Values{"amount": {"10"}, "additional_steps.redirect": {"true"}}, http.StatusUnprocessableEntity,
			[]string{`id="field-additional_steps-error"`, "redirect_url"}},
		{"metadata not JSON", url.Values{"amount": {"10"}, "metadata": {"{oops"}}, http.StatusUnprocessableEntity,
			[]string{`id="field-metadata-error"`, "must be valid JSON"}},
		{"zero, the service's rule", url.Values{"amount": {"0"}}, http.StatusUnprocessableEntity,
			[]string{`id="field-amount-error"`, "must be greater than zero"}},
		{"too large, the service's rule", url.Values{"amount": {"10000000001"}}, http.StatusUnprocessableEntity,
			[]string{`id="field-amount-error"`, "must be at most $10,000,000,000.00"}},
		{"several problems at once", url.Values{"amount": {"-1"}, "payee.email": {"nope"}, "memo": {strings.Repeat("m", 501)}},
			http.StatusUnprocessableEntity, []string{"Some fields need attention.", `id="field-amount-error"`,
				`id="field-payee.email-error"`, `id="field-memo-error"`, "must be at most 500 characters"}},
		{"the dashboard's problems with the service's", url.Values{"amount": {"12.345"}, "payee.email": {"nope"},
			"payee.phone_number": {"12"}, "metadata": {"{oops"}, "memo": {strings.Repeat("m", 501)}},
			http.StatusUnprocessableEntity, []string{"Some fields need attention.", "Use at most two decimals.",
				"Enter an email address like name@example.com.", "Enter a valid phone number",
				`id="field-metadata-error"`, "Memo must be at most 500 characters."}},
		{"more than the app has", url.Values{"amount": {"10"}}, http.StatusUnprocessableEntity, []string{`role="alert"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ops.post("/payout-links", tc.form)
			wantStatus(t, res, tc.status)
			wantBody(t, res, tc.want...)
		})
	}

	h.deposit(100_00)
	key := regexp.MustCompile(`name="idempotency_key" value="([^"]+)"`).FindStringSubmatch(ops.get("/payout-links/new").body)[1]
	post := url.Values{"amount": {"25.50"}, "user_id": {u.ID}, "payee.first_name": {"Uma"}, "payee.last_name": {"User"},
		"payee.email": {"uma@example.com"}, "payee.country_code": {"1"}, "payee.phone_number": {"4155550123"},
		"delivery.method": {"email"}, "delivery.message": {"Thanks for your work"}, "memo": {"March invoice"},
		"tax_exempt": {"true"}, "force_collect_compliance_information": {"true"}, "payout_fee_party": {"user"},
		"additional_steps.id-verification": {"true"}, "additional_steps.redirect": {"true"},
		"redirect_url": {"https://example.com/done"}, "metadata": {`{"invoice":"M-3"}`}, "idempotency_key": {key}}
	res := ops.post("/payout-links", post)
	wantRedirect(t, res, "/payout-links/")
	loc := res.Header.Get("Location")
	// The same form sent again (a double click) issues no second link.
	wantRedirect(t, ops.post("/payout-links", post), loc)

	id := strings.TrimPrefix(loc, "/payout-links/")
	l, err := h.payouts.GetPayoutLink(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Amount != 2550 || deref(l.UserID) != u.ID || l.Payee.Email != "uma@example.com" || l.Delivery.Method != payouts.DeliveryEmail ||
		l.Delivery.Message != "Thanks for your work" || l.Memo != "March invoice" || !l.TaxExempt || l.PayoutFeeParty != payouts.FeePartyUser ||
		string(l.Metadata) != `{"invoice":"M-3"}` {
		t.Errorf("link as created: %+v", l)
	}
	f, err := h.payouts.GetFlow(t.Context(), deref(l.FlowID))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Steps, " ") != "compliance id-verification payout redirect" || f.RedirectURL != "https://example.com/done" {
		t.Errorf("the link's flow: steps %v, redirect %q", f.Steps, f.RedirectURL)
	}
	if got := ids(ops.get("/payout-links")); len(got) != 1 {
		t.Errorf("%d links after a double submit, want 1", len(got))
	}
	if e := h.auditActions("payout_link", id); len(e) == 0 || e[0].Action != "payout_link.create" {
		t.Errorf("audit: %+v", e)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestPayoutLinkDetailAndCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	support, op := h.signedIn(dashstore.RoleSupport)
	manager, _ := h.signedIn(dashstore.RoleManager)
	h.deposit(100_00)
	l := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 30_00, Memo: "bonus",
		Payee: &payouts.Payee{FirstName: "Cal", LastName: "Cancel", Email: "cal@example.com"}})
	linkURL := "/payout-links/" + l.ID

	page := support.get(linkURL)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, "$30.00", "Cal Cancel", "cal@example.com", "bonus", `data-testid="link-status"`, "Delivered",
		`id="payout-link-url"`, ">"+l.Link+"<", `data-copy="#payout-link-url"`, `id="claim-preview"`, "Claim $30.00",
		`id="cancel-link"`, `name="reason"`, "Cancel payout link")
	if strings.Contains(page.body, "/transfers/") || strings.Contains(page.body, "/flows/") {
		t.Error("support, who may not read transfers or flows, gets links to them")
	}
	if strings.Contains(manager.get(linkURL).body, "Cancel payout link") {
		t.Error("a manager, who may not cancel links, sees the cancel form")
	}
	wantBody(t, manager.get(linkURL), `href="/flows/`+deref(l.FlowID)+`"`, `href="/transfers/`+deref(l.TransferID)+`"`)

	t.Run("a reason is required", func(t *testing.T) {
		res := support.post(linkURL+"/cancel", url.Values{"reason": {" "}}, "HX-Request", "true")
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, `id="cancel-link"`, "Say why the link is canceled.", `aria-invalid="true"`)
		if strings.Contains(res.body, "<html") || strings.Contains(res.body, "<iframe") {
			t.Error("the htmx answer is more than the cancel form")
		}
		res = support.post(linkURL+"/cancel", nil)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "<!doctype html>", "Say why the link is canceled.")
		if got, _ := h.payouts.GetPayoutLink(t.Context(), l.ID); got.Status == payouts.LinkCanceled {
			t.Fatal("canceled without a reason")
		}
	})

	res := support.post(linkURL+"/cancel", url.Values{"reason": {"payee asked for a bank transfer"}}, "HX-Request", "true")
	if res.Header.Get("HX-Redirect") != linkURL {
		t.Fatalf("htmx cancel: status %d, HX-Redirect %q", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
	page = support.get(linkURL)
	wantBody(t, page, "Canceled the payout link; $30.00 is back in the app&#39;s wallet.", "Canceled")
	if strings.Contains(page.body, "Cancel payout link") {
		t.Error("a canceled link still offers to cancel it")
	}
	entries := h.auditActions("payout_link", l.ID)
	if len(entries) != 1 || entries[0].Action != "payout_link.cancel" || entries[0].OperatorID != op.ID ||
		!strings.HasSuffix(entries[0].Detail, ": payee asked for a bank transfer") {
		t.Errorf("audit = %+v", entries)
	}
	// The page says who canceled the link, when and why, from the audit log.
	canceled := section(t, page.body, `data-testid="link-cancellation"`)
	for _, want := range []string{op.Name + " (" + op.Email + ")", "payee asked for a bank transfer", "<time"} {
		if !strings.Contains(canceled, want) {
			t.Errorf("the cancellation lacks %q:\n%s", want, canceled)
		}
	}
	if strings.Contains(canceled, "canceled $30.00 for") {
		t.Errorf("the reason carries the audit detail's prefix:\n%s", canceled)
	}
	byAPI := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 1_00})
	if _, err := h.payouts.CancelPayoutLink(t.Context(), byAPI.ID); err != nil {
		t.Fatal(err)
	}
	wantBody(t, support.get("/payout-links/"+byAPI.ID), `data-testid="link-cancellation"`, "Canceled through the API")
	// Canceling again says why it cannot, on the form.
	again := support.post(linkURL+"/cancel", url.Values{"reason": {"twice"}})
	wantStatus(t, again, http.StatusUnprocessableEntity)
}

// section is the part of body from the element marked by attr to the end of its section.
func section(t *testing.T, body, attr string) string {
	t.Helper()
	i := strings.Index(body, attr)
	if i < 0 {
		t.Fatalf("no %s in the page", attr)
	}
	body = body[i:]
	return body[:strings.Index(body, "</section>")]
}
