package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// refusedPayout makes a payee whose PayPal the sandbox refuses every time and a payout to them
// that failed, funded by the app or from the payee's own wallet, tax-exempt or not.
func (h *harness) refusedPayout(first string, fund, taxExempt bool) (*payouts.User, *payouts.Transfer) {
	h.t.Helper()
	ctx := context.Background()
	u := h.createUser(first, "Refused")
	if _, err := h.payouts.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: "fail@example.com", IsDefault: true}); err != nil {
		h.t.Fatal(err)
	}
	if !fund {
		if _, err := h.payouts.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: u.ID, Amount: -20_00}); err != nil {
			h.t.Fatal(err)
		}
	}
	p, err := h.payouts.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: u.ID, Amount: 20_00,
		Platform: payouts.PlatformPayPal, Fund: fund, PayoutFeeParty: payouts.FeePartyPlatform, TaxExempt: taxExempt})
	if err != nil || p.Status != payouts.TransferFailed {
		h.t.Fatalf("the refused payout: %+v, %v", p, err)
	}
	return u, p
}

// payoutsTo counts the payouts to a user.
func (h *harness) payoutsTo(userID string) []payouts.Transfer {
	h.t.Helper()
	list, err := h.payouts.ListTransfers(context.Background(), payouts.Page{Limit: 100},
		payouts.TransferFilter{UserID: userID, Type: payouts.TransferPayout})
	if err != nil {
		h.t.Fatal(err)
	}
	return list.Data
}

// TestPayoutsListFailureReasonAndRetry: the transfers list shows a failed payout's reason, and
// Retry to those who may pay; the retry page says before acting why it failed and that a rail
// refusing for a reason that still holds refuses again, never that it will pass; a double
// submit makes one payout, audited; support and managers are refused.
func TestPayoutsListFailureReasonAndRetry(t *testing.T) {
	h := newHarness(t)
	h.deposit(200_00)
	u, failed := h.refusedPayout("Bea", true, false)
	retryPath := "/transfers/" + failed.ID + "/retry"

	for _, tc := range []struct {
		role      dashstore.Role
		list      int  // status of the list
		offered   bool // Retry on the row
		retryPage int
	}{
		{dashstore.RoleAdmin, http.StatusOK, true, http.StatusOK},
		{dashstore.RoleOperations, http.StatusOK, true, http.StatusOK},
		{dashstore.RoleManager, http.StatusOK, false, http.StatusForbidden},
		{dashstore.RoleSupport, http.StatusForbidden, false, http.StatusForbidden},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			a, _ := h.signedIn(tc.role)
			res := a.get("/transfers")
			wantStatus(t, res, tc.list)
			if tc.list == http.StatusOK {
				wantBody(t, res, "Failure reason", failed.FailureReason)
				if got := strings.Contains(res.body, `href="`+retryPath+`"`); got != tc.offered {
					t.Errorf("Retry offered = %v, want %v", got, tc.offered)
				}
			}
			wantStatus(t, a.get(retryPath), tc.retryPage)
			if tc.retryPage == http.StatusForbidden {
				wantStatus(t, a.post(retryPath, nil), http.StatusForbidden)
			}
		})
	}
	if n := len(h.payoutsTo(u.ID)); n != 1 {
		t.Fatalf("%d payouts after the refused roles, want 1", n)
	}

	op, password := h.addOperator("retrier@example.com", dashstore.RoleOperations)
	a := h.agent()
	a.login(op.Email, password)
	res := a.get(retryPath)
	wantBody(t, res, "The payout failed: "+failed.FailureReason, "refuses again", "The service's checks pass now")
	first := a.post(retryPath, nil)
	second := a.post(retryPath, nil)
	for _, r := range []response{first, second} {
		if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/transfers/") {
			t.Fatalf("retry: %d to %q\n%.2000s", r.StatusCode, r.Header.Get("Location"), r.body)
		}
	}
	if first.Header.Get("Location") != second.Header.Get("Location") {
		t.Errorf("a double submit went to %s and %s, want one payout", first.Header.Get("Location"), second.Header.Get("Location"))
	}
	all := h.payoutsTo(u.ID)
	if len(all) != 2 {
		t.Fatalf("%d payouts after a double submit, want the failed one and one retry", len(all))
	}
	for _, p := range all {
		if p.ID != failed.ID && (p.Amount != failed.Amount || p.ExternalData.Platform != payouts.PlatformPayPal) {
			t.Errorf("the retry = %+v, want %s by PayPal", p, failed.Amount)
		}
	}
	if !containsAction(h.auditActions("transfer", failed.ID), "payout.retry") {
		t.Error("the retry is not audited")
	}
}

// TestPayoutRetryRefusedBeforehand: a retry the service's preflight refuses (the payee's wallet
// no longer holds the money) is said on the page, offers no button, and a submit sends nothing.
func TestPayoutRetryRefusedBeforehand(t *testing.T) {
	h := newHarness(t)
	h.deposit(200_00)
	u, failed := h.refusedPayout("Cal", false, false)
	// The money the failed payout gave back to Cal's wallet goes back to the app.
	if _, err := h.payouts.CreateTransfer(t.Context(), payouts.CreateTransferRequest{UserID: u.ID, Amount: 20_00}); err != nil {
		t.Fatal(err)
	}
	a, _ := h.signedIn(dashstore.RoleOperations)
	retryPath := "/transfers/" + failed.ID + "/retry"
	res := a.get(retryPath)
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "The service would refuse it now")
	if strings.Contains(res.body, `action="`+retryPath+`"`) {
		t.Error("a refused retry offers its button")
	}
	wantStatus(t, a.post(retryPath, nil), http.StatusUnprocessableEntity)
	if n := len(h.payoutsTo(u.ID)); n != 1 {
		t.Fatalf("%d payouts after a refused retry, want 1", n)
	}
}

// TestRetryOfAPayoutThatDidNotFail: the retry page of a transfer that is not a failed payout says
// there is nothing to retry, as a page (200) with no button, and sending it anyway is refused
// and pays nothing.
func TestRetryOfAPayoutThatDidNotFail(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.fundedUser("Fay", "Flagged", 50_00)
	flagged := h.flaggedPayout(u)
	a, _ := h.signedIn(dashstore.RoleOperations)
	retryPath := "/transfers/" + flagged.ID + "/retry"
	res := a.get(retryPath)
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, "Nothing to retry", "this transfer is flagged")
	if strings.Contains(res.body, `action="`+retryPath+`"`) {
		t.Error("a transfer that did not fail offers a retry")
	}
	wantStatus(t, a.post(retryPath, nil), http.StatusUnprocessableEntity)
	if n := len(h.payoutsTo(u.ID)); n != 1 {
		t.Fatalf("%d payouts after refusing to retry a flagged one, want 1", n)
	}
}

// TestPayoutRetryKeepsTaxExempt: the retry of a failed tax-exempt payout is tax-exempt too, so it
// does not count toward the payee's 1099 total. Our service says the flag on the transfer and
// the retry carries it; the public API does not, so the page says it cannot be carried and the
// operator chooses: a retry sent without a choice is refused and pays nothing, never guessed.
func TestPayoutRetryKeepsTaxExempt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		public     bool
		taxExempt  bool
		form       url.Values // what the operator sends; nil: the button alone
		status     int
		wantExempt bool // of the retry, when one is made
	}{
		{name: "ours exempt", taxExempt: true, status: http.StatusSeeOther, wantExempt: true},
		{name: "ours not exempt", taxExempt: false, status: http.StatusSeeOther, wantExempt: false},
		{name: "public no choice", public: true, taxExempt: true, status: http.StatusUnprocessableEntity},
		{name: "public garbled choice", public: true, taxExempt: true, form: url.Values{"tax_exempt": {"maybe"}, "fund": {"payee"}},
			status: http.StatusUnprocessableEntity},
		{name: "public chose exempt", public: true, taxExempt: true, form: url.Values{"tax_exempt": {"true"}, "fund": {"payee"}},
			status: http.StatusSeeOther, wantExempt: true},
		{name: "public chose counted", public: true, taxExempt: true, form: url.Values{"tax_exempt": {"false"}, "fund": {"payee"}},
			status: http.StatusSeeOther, wantExempt: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarnessWith(t, harnessSetup{public: tc.public})
			h.deposit(200_00)
			// From the payee's own wallet: the public API's lines do not say whether the app funded a payout.
			u, failed := h.refusedPayout("Tex", false, tc.taxExempt)
			retryPath := "/transfers/" + failed.ID + "/retry"
			a, _ := h.signedIn(dashstore.RoleOperations)
			page := a.get(retryPath)
			wantStatus(t, page, http.StatusOK)
			asks := strings.Contains(page.body, `name="tax_exempt"`)
			if asks != tc.public {
				t.Errorf("the page asks whether the retry is tax-exempt = %v, want %v", asks, tc.public)
			}
			if tc.public {
				wantBody(t, page, "cannot be carried")
			}
			res := a.post(retryPath, tc.form)
			wantStatus(t, res, tc.status)
			all := h.payoutsTo(u.ID)
			if tc.status != http.StatusSeeOther {
				wantBody(t, res, "Choose whether the retry is tax-exempt")
				if len(all) != 1 {
					t.Fatalf("%d payouts after a retry without a choice, want the failed one alone", len(all))
				}
				return
			}
			if len(all) != 2 {
				t.Fatalf("%d payouts after the retry, want 2", len(all))
			}
			for _, p := range all {
				if p.ID == failed.ID {
					continue
				}
				retry, err := h.payouts.GetTransfer(t.Context(), p.ID)
				if err != nil {
					t.Fatal(err)
				}
				if retry.TaxExempt != tc.wantExempt {
					t.Errorf("the retry's tax_exempt = %v, want %v", retry.TaxExempt, tc.wantExempt)
				}
			}
		})
	}
}

// TestPayoutRetryAsksWhoPays: the public API's lines do not say whether the app's wallet funded
// a payout, so there the retry page asks who pays and sends nothing until the operator says;
// our service's lines say it, and the retry pays as the failed payout did.
func TestPayoutRetryAsksWhoPays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		public  bool
		form    url.Values
		status  int
		says    string // part of the answer's page
		retried bool
	}{
		{name: "ours pays as before", status: http.StatusSeeOther, retried: true},
		{name: "public no choice", public: true, form: url.Values{"tax_exempt": {"false"}},
			status: http.StatusUnprocessableEntity, says: "Choose who pays the retry"},
		{name: "public garbled choice", public: true, form: url.Values{"tax_exempt": {"false"}, "fund": {"bank"}},
			status: http.StatusUnprocessableEntity, says: "Choose who pays the retry"},
		{name: "public the app pays", public: true, form: url.Values{"tax_exempt": {"false"}, "fund": {"app"}},
			status: http.StatusSeeOther, retried: true},
		{name: "public the payee's empty wallet", public: true, form: url.Values{"tax_exempt": {"false"}, "fund": {"payee"}},
			status: http.StatusUnprocessableEntity, says: "nsufficient"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarnessWith(t, harnessSetup{public: tc.public})
			h.deposit(200_00)
			u, failed := h.refusedPayout("Fay", true, false)
			retryPath := "/transfers/" + failed.ID + "/retry"
			a, _ := h.signedIn(dashstore.RoleOperations)
			page := a.get(retryPath)
			wantStatus(t, page, http.StatusOK)
			if asks := strings.Contains(page.body, `name="fund"`); asks != tc.public {
				t.Errorf("the page asks who pays = %v, want %v", asks, tc.public)
			}
			res := a.post(retryPath, tc.form)
			wantStatus(t, res, tc.status)
			if tc.says != "" {
				wantBody(t, res, tc.says)
			}
			want := 1
			if tc.retried {
				want = 2
			}
			if n := len(h.payoutsTo(u.ID)); n != want {
				t.Errorf("%d payouts to the payee, want %d", n, want)
			}
		})
	}
}
