package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// heldApproval stores a pending approval made by maker directly, as setup.
func (h *harness) heldApproval(maker dashstore.Operator) dashstore.Approval {
	h.t.Helper()
	a := dashstore.Approval{Kind: "payout", Request: `{"user_id":"none","amount":100001}`, IdempotencyKey: uuid.NewString(),
		Amount: 1000_01, PayeeName: "Held Payee", PayeeEmail: "held@example.com", Method: "PayPal", MakerID: maker.ID, MakerEmail: maker.Email}
	if _, err := h.store.CreateApproval(context.Background(), &a, h.clock.Now()); err != nil {
		h.t.Fatal(err)
	}
	return a
}

// largePayee is a funded payee with a W-9 on file, whom the service pays above the 1099
// threshold.
func (h *harness) largePayee(first, last string, cents int64) *payouts.User {
	h.t.Helper()
	u := h.fundedUser(first, last, cents)
	h.w9Of(u)
	return u
}

// payoutRequest makes a payout request for u through the API, as setup.
func (h *harness) payoutRequest(u *payouts.User) *payouts.PayoutRequest {
	h.t.Helper()
	r, err := h.payouts.CreatePayoutRequest(context.Background(), payouts.CreatePayoutRequestRequest{Amount: 5_00, UserID: u.ID, Memo: "from the API"})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// payoutsOf counts the payouts the service made to u.
func (h *harness) payoutsOf(u *payouts.User) int {
	h.t.Helper()
	list, err := h.payouts.ListTransfers(context.Background(), payouts.Page{Limit: 100}, payouts.TransferFilter{UserID: u.ID, Type: payouts.TransferPayout})
	if err != nil {
		h.t.Fatal(err)
	}
	return len(list.Data)
}

// approvalOf reads the approval a held form was redirected to.
func (h *harness) approvalOf(res response) dashstore.Approval {
	h.t.Helper()
	wantRedirect(h.t, res, "/approvals/")
	a, err := h.store.Approval(context.Background(), strings.TrimPrefix(res.Header.Get("Location"), "/approvals/"))
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

func decide(action, reason string) url.Values {
	return url.Values{"action": {action}, "reason": {reason}}
}

// TestApprovalThreshold: a payout or payout link of exactly the threshold goes out; one cent more
// waits, and nothing moves until it is approved.
func TestApprovalThreshold(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{sharedClock: true})
	u := h.largePayee("Tess", "Threshold", 3000_00)
	h.deposit(3000_00)
	h.afterSetup()
	ops, _ := h.signedIn(dashstore.RoleOperations)
	for _, tc := range []struct {
		name, path, amount string
		form               url.Values
		held               bool
	}{
		{"payout at the threshold", "/users/" + u.ID + "/payouts", "1000.00", url.Values{"platform": {"default"}}, false},
		{"payout a cent above", "/users/" + u.ID + "/payouts", "1000.01", url.Values{"platform": {"default"}}, true},
		{"link at the threshold", "/payout-links", "1000.00", url.Values{"payee.email": {"tess@example.com"}, "delivery.method": {"link"}}, false},
		{"link a cent above", "/payout-links", "1000.01", url.Values{"payee.email": {"tess@example.com"}, "delivery.method": {"link"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := h.store.CountOpenApprovals(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			paidBefore := h.payoutsOf(u)
			tc.form.Set("amount", tc.amount)
			tc.form.Set("idempotency_key", uuid.NewString())
			res := ops.post(tc.path, tc.form)
			after, _ := h.store.CountOpenApprovals(t.Context())
			if !tc.held {
				if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || strings.HasPrefix(loc, "/approvals/") || after != before {
					t.Fatalf("status %d to %q, %d approvals open (was %d): want it sent, not held", res.StatusCode, loc, after, before)
				}
				return
			}
			a := h.approvalOf(res)
			if after != before+1 || a.Status != dashstore.ApprovalPending || a.Amount.String() != "$"+strings.Replace(tc.amount, "1000", "1,000", 1) {
				t.Errorf("approval %+v; %d open, was %d", a, after, before)
			}
			if h.payoutsOf(u) != paidBefore {
				t.Error("a held payout was paid")
			}
			page := ops.get(res.Header.Get("Location"))
			wantBody(t, page, "Waiting for approval", "tess", "@example.com", a.Amount.String())
		})
	}
}

func TestApprovalRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, adminOp := h.signedIn(dashstore.RoleAdmin)
	manager, _ := h.signedIn(dashstore.RoleManager)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	u := h.largePayee("Rue", "Rules", 5000_00)
	userURL := "/users/" + u.ID

	// An admin, who may approve, asks for a payout above the threshold.
	key := uuid.NewString()
	send := url.Values{"platform": {"default"}, "amount": {"1500.00"}, "idempotency_key": {key}}
	a := h.approvalOf(admin.post(userURL+"/payouts", send))
	if a.MakerID != adminOp.ID {
		t.Fatalf("maker = %s, want the admin", a.MakerID)
	}
	approvalURL := paths.Approval(a.ID)
	decisionURL := paths.ApprovalDecision(a.ID)

	t.Run("a double click holds it once", func(t *testing.T) {
		if again := h.approvalOf(admin.post(userURL+"/payouts", send)); again.ID != a.ID {
			t.Errorf("the same form made approval %s, want %s", again.ID, a.ID)
		}
	})
	t.Run("the maker cannot approve their own", func(t *testing.T) {
		page := admin.get(approvalURL)
		if strings.Contains(page.body, `id="approve"`) {
			t.Error("the maker sees the Approve button")
		}
		wantBody(t, page, "another operator must approve")
		wantStatus(t, admin.post(decisionURL, decide("approve", "")), http.StatusForbidden)
		wantStatus(t, admin.post(decisionURL, decide("reject", "changed my mind")), http.StatusForbidden)
	})
	t.Run("a role that does not approve is refused", func(t *testing.T) {
		if strings.Contains(ops.get(approvalURL).body, `id="approve"`) {
			t.Error("operations sees the Approve button")
		}
		wantStatus(t, ops.post(decisionURL, decide("approve", "")), http.StatusForbidden)
	})
	t.Run("the CSRF token is required", func(t *testing.T) {
		wantStatus(t, manager.postRaw(decisionURL, decide("approve", "")), http.StatusForbidden)
	})
	t.Run("reject needs a reason", func(t *testing.T) {
		res := manager.post(decisionURL, decide("reject", "  "))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Say why it is rejected.")
	})
	if h.payoutsOf(u) != 0 {
		t.Fatal("refused decisions paid")
	}
	t.Run("approve twice pays once", func(t *testing.T) {
		wantBody(t, manager.get(approvalURL), `id="approve"`, "Rue Rules", "rue.rules@example.com", "$1,500.00", `href="`+userURL+`"`)
		wantRedirect(t, manager.post(decisionURL, decide("approve", "")), approvalURL)
		wantRedirect(t, manager.post(decisionURL, decide("approve", "")), approvalURL)
		got, err := h.store.Approval(t.Context(), a.ID)
		if err != nil || got.Status != dashstore.ApprovalApproved || got.ResultID == "" {
			t.Fatalf("approval = %+v (%v), want approved with its transfer", got, err)
		}
		if n := h.payoutsOf(u); n != 1 {
			t.Errorf("%d payouts, want 1", n)
		}
		wantBody(t, manager.get(approvalURL), paths.Transfer(got.ResultID))
		if entries := h.auditActions("approval", a.ID); len(entries) != 2 || entries[0].Action != "approval.approve" ||
			entries[1].Action != "approval.request" {
			t.Errorf("audit = %+v, want the request and the approval", entries)
		}
	})
	t.Run("reject with a reason pays nothing", func(t *testing.T) {
		r := h.approvalOf(ops.post(userURL+"/payouts", url.Values{"platform": {"default"}, "amount": {"2000.00"}}))
		wantRedirect(t, manager.post(paths.ApprovalDecision(r.ID), decide("reject", "not this month")), paths.Approval(r.ID))
		wantBody(t, manager.get(paths.Approval(r.ID)), "Rejected", "not this month")
		wantRedirect(t, admin.post(paths.ApprovalDecision(r.ID), decide("approve", "")), paths.Approval(r.ID))
		if n := h.payoutsOf(u); n != 1 {
			t.Errorf("%d payouts after a rejection and a late approval, want still 1", n)
		}
		if e := h.auditActions("approval", r.ID); len(e) != 2 || e[0].Action != "approval.reject" || !strings.Contains(e[0].Detail, "not this month") {
			t.Errorf("audit = %+v, want the rejection with its reason", e)
		}
	})
	t.Run("what the service would refuse is not approved, and stays open", func(t *testing.T) {
		poor := h.createUser("Pat", "Poor")
		h.payPalDefault(poor)
		// Pat holds the money when the payout is held (a payout the service would refuse then is
		// refused on its form), and not when it is approved.
		h.deposit(1200_00)
		h.pay(poor, 1200_00)
		f := h.approvalOf(ops.post("/users/"+poor.ID+"/payouts", url.Values{"platform": {"default"}, "amount": {"1200.00"}}))
		if _, err := h.payouts.CreateTransfer(t.Context(), payouts.CreateTransferRequest{UserID: poor.ID, Amount: 1200_00}); err != nil {
			t.Fatal(err)
		}
		// The preflight the forms ask refuses it before it is sent: the approval says why and
		// stays open, to approve once fixed or to reject.
		res := manager.post(paths.ApprovalDecision(f.ID), decide("approve", ""))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Not approved")
		if got, _ := h.store.Approval(t.Context(), f.ID); got.Status != dashstore.ApprovalPending || got.ResultID != "" {
			t.Errorf("approval = %+v, want pending, nothing made", got)
		}
		if e := h.auditActions("approval", f.ID); len(e) == 0 || e[0].Action != "approval.refuse" {
			t.Errorf("audit = %+v, want the refused attempt", e)
		}
		wantRedirect(t, manager.post(paths.ApprovalDecision(f.ID), decide("reject", "no money")), paths.Approval(f.ID))
	})
	t.Run("the queue and the overview", func(t *testing.T) {
		h.approvalOf(ops.post(userURL+"/payouts", url.Values{"platform": {"default"}, "amount": {"1001.00"}}))
		wantBody(t, manager.get("/overview"), `id="overview-approvals"`, "1 waiting", "$1,001.00")
		list := manager.get("/approvals")
		wantBody(t, list, `id="approvals-open"`, "$1,001.00", `id="approvals-decided"`, "$1,500.00", "$2,000.00")
	})
}

// TestApprovalPayoutRequests: a payout request made through the API waits in the same queue,
// marked as such, under the same role rule. On the public API, which cannot review it, the page
// shows it without the approve and reject forms, says so in one line, and a forged decision
// changes nothing.
func TestApprovalPayoutRequests(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { testApprovalPayoutRequests(t, b.public) })
	}
}

func testApprovalPayoutRequests(t *testing.T, public bool) {
	h := newHarnessWith(t, harnessSetup{public: public})
	manager, _ := h.signedIn(dashstore.RoleManager)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	u := h.fundedUser("Api", "Asker", 100_00)
	r := h.payoutRequest(u)
	rejected := h.payoutRequest(u)

	wantBody(t, manager.get("/approvals"), paths.PayoutRequest(r.ID), "API", "Api Asker")
	wantBody(t, manager.get("/overview"), "2 waiting")
	page := manager.get(paths.PayoutRequest(r.ID))
	if public {
		wantBody(t, page, "From the API", "from the API", "api.asker@example.com", apiNote,
			"Approving or rejecting a payout request: not available on this API")
		for _, form := range []string{`id="approve"`, `id="reject"`} {
			if strings.Contains(page.body, form) {
				t.Errorf("the page offers %s on an API that cannot review", form)
			}
		}
		res := manager.post(paths.PayoutRequestReview(r.ID), decide("approve", ""))
		wantStatus(t, res, http.StatusConflict)
		wantBody(t, res, apiNote)
		got, err := h.payouts.GetPayoutRequest(t.Context(), r.ID)
		if err != nil || got.Status != payouts.RequestCreated || h.payoutsOf(u) != 0 || len(h.auditActions("payout_request", r.ID)) != 0 {
			t.Errorf("a decision posted anyway: request %+v (%v), %d payouts, audit %+v; want nothing done",
				got, err, h.payoutsOf(u), h.auditActions("payout_request", r.ID))
		}
		if refused := h.public.Refused(); slices.ContainsFunc(refused, func(r string) bool { return strings.HasSuffix(r, "/review") }) {
			t.Errorf("the dashboard asked the public API for a review: %v", refused)
		}
		return
	}
	wantBody(t, page, "From the API", "from the API", `id="approve"`, "api.asker@example.com")
	if strings.Contains(page.body, apiNote) {
		t.Error("our service can review, yet the page says it cannot")
	}
	if strings.Contains(ops.get(paths.PayoutRequest(r.ID)).body, `id="approve"`) {
		t.Error("operations sees the Approve button")
	}
	wantStatus(t, ops.post(paths.PayoutRequestReview(r.ID), decide("approve", "")), http.StatusForbidden)
	wantStatus(t, manager.post(paths.PayoutRequestReview(r.ID), decide("reject", "")), http.StatusUnprocessableEntity)

	wantRedirect(t, manager.post(paths.PayoutRequestReview(r.ID), decide("approve", "")), paths.PayoutRequest(r.ID))
	got, err := h.payouts.GetPayoutRequest(t.Context(), r.ID)
	if err != nil || got.Status != payouts.RequestApproved {
		t.Fatalf("request = %+v (%v), want approved", got, err)
	}
	// Approving again is refused by the service, and pays nothing more.
	wantStatus(t, manager.post(paths.PayoutRequestReview(r.ID), decide("approve", "")), http.StatusUnprocessableEntity)
	if n := h.payoutsOf(u); n != 1 {
		t.Errorf("%d payouts, want 1", n)
	}
	wantRedirect(t, manager.post(paths.PayoutRequestReview(rejected.ID), decide("reject", "duplicate")), paths.PayoutRequest(rejected.ID))
	// The refused second approval is in the audit log too, newest first.
	for id, actions := range map[string]string{r.ID: "payout_request.refuse payout_request.approve", rejected.ID: "payout_request.reject"} {
		var got []string
		for _, e := range h.auditActions("payout_request", id) {
			got = append(got, e.Action)
		}
		if strings.Join(got, " ") != actions {
			t.Errorf("audit of %s = %v, want %s", id, got, actions)
		}
	}
	wantBody(t, manager.get("/overview"), "0 waiting")
}

// BenchmarkApprovalPages: the overview with its queue section and the approvals page, with 100
// held payouts and 100 API payout requests waiting.
func BenchmarkApprovalPages(b *testing.B) {
	h := newHarness(b)
	maker, _ := h.addOperator("maker@example.com", dashstore.RoleOperations)
	manager, _ := h.signedIn(dashstore.RoleManager)
	u := h.createUser("Quinn", "Queue")
	for range 100 {
		h.heldApproval(maker)
		h.payoutRequest(u)
	}
	for _, path := range []string{"/overview", "/approvals"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			for b.Loop() {
				if res := manager.get(path); res.StatusCode != http.StatusOK || !strings.Contains(res.body, "Held Payee") {
					b.Fatalf("GET %s: status %d", path, res.StatusCode)
				}
			}
		})
	}
}
