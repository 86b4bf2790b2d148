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

var idempotencyKey = regexp.MustCompile(`id="send-payout"[\s\S]*?name="idempotency_key" value="([^"]+)"`)

func TestSendPayout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	support, _ := h.signedIn(dashstore.RoleSupport)

	bare := h.createUser("Ned", "Nomethod")
	wantBody(t, ops.get("/users/"+bare.ID), `id="send-payout"`, "Add a payout method first")

	u := h.fundedUser("Pia", "Payee", 100_00)
	ach, err := h.payouts.AddPayoutMethod(t.Context(), u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
		RoutingNumber: "021000021", AccountNumber: "123456789", AccountType: payouts.AccountChecking})
	if err != nil {
		t.Fatal(err)
	}
	userURL := "/users/" + u.ID
	page := ops.get(userURL)
	wantBody(t, page, `id="send-payout"`, `action="/users/`+u.ID+`/payouts"`, `value="default"`, `value="paypal"`, `value="ach"`,
		`name="account_id"`, `value="`+ach.ID+`"`, "6789", `name="payout_fee_party"`, `name="fund"`, `id="field-payout-amount"`)
	if strings.Contains(page.body, "123456789") {
		t.Error("the full account number is on the page")
	}
	if strings.Contains(support.get(userURL).body, `id="send-payout"`) {
		t.Error("support sees the payout form")
	}
	keys := map[string]bool{}
	for range 3 {
		m := idempotencyKey.FindStringSubmatch(ops.get(userURL).body)
		if m == nil || !payouts.ValidID(m[1]) || keys[m[1]] {
			t.Fatalf("the form's idempotency key %v is missing, not an id, or not fresh", m)
		}
		keys[m[1]] = true
	}

	t.Run("bad input", func(t *testing.T) {
		res := ops.post(userURL+"/payouts", url.Values{"platform": {"paypal"}, "amount": {"1.234"}, "payout_fee_party": {"nobody"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, `id="field-payout-amount-error"`, "Use at most two decimals.", `value="1.234"`,
			"Some fields need attention.", "must be user or platform")
		res = ops.post(userURL+"/payouts", url.Values{"platform": {"ach"}, "account_id": {bare.ID}, "amount": {"5"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, `id="field-account_id-error"`, "is not a payout method of this user")
		res = ops.post(userURL+"/payouts", url.Values{"platform": {"venmo"}, "amount": {"5"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "no venmo payout method")
	})

	t.Run("a double submit pays once", func(t *testing.T) {
		key := idempotencyKey.FindStringSubmatch(ops.get(userURL).body)[1]
		form := url.Values{"platform": {"ach"}, "account_id": {ach.ID}, "amount": {"5.00"}, "payout_fee_party": {"user"},
			"idempotency_key": {key}}
		wantRedirect(t, ops.post(userURL+"/payouts", form), userURL)
		wantRedirect(t, ops.post(userURL+"/payouts", form), userURL)
		wantBody(t, ops.get(userURL), "Sent a payout of $5.00 by Bank account (ACH).")
		got := h.transferIDs(payouts.TransferFilter{UserID: u.ID, Type: payouts.TransferPayout})
		if len(got) != 1 {
			t.Fatalf("%d payouts after a double submit, want 1", len(got))
		}
		tr, err := h.payouts.GetTransfer(t.Context(), got[0])
		if err != nil || tr.Amount != 500 || tr.ExternalData.AccountID != ach.ID {
			t.Fatalf("payout %+v, %v", tr, err)
		}
	})

	t.Run("funded and flagged", func(t *testing.T) {
		h.deposit(20_00)
		res := ops.post(userURL+"/payouts", url.Values{"platform": {"default"}, "amount": {"13.13"}, "fund": {"true"}})
		wantRedirect(t, res, userURL)
		wantBody(t, ops.get(userURL), "The payout of $13.13 by PayPal is held for review.")
	})

	entries := h.auditActions("user", u.ID)
	var payoutsAudited int
	for _, e := range entries {
		if e.Action == "payout.create" {
			payoutsAudited++
		}
	}
	if payoutsAudited < 2 {
		t.Errorf("%d payout.create entries in the audit log", payoutsAudited)
	}
}
