package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
)

// TestApprovalShowsPreflight replays the finding of a held $1,500 payout approved with no W-9
// warning: a payout the service would refuse is not held but refused on its form; one that
// becomes refusable while it waits shows why on its approval page, to those who may pay or
// approve, before they approve.
func TestApprovalShowsPreflight(t *testing.T) {
	t.Parallel()
	// Only admins approve, so a manager reads the queue without paying or approving.
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.Approvers = []dashstore.Role{dashstore.RoleAdmin}
	}})
	h.deposit(10_000_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	manager, _ := h.signedIn(dashstore.RoleManager)
	payout := url.Values{"platform": {"default"}, "amount": {"1500.00"}}

	owes := h.payee("Olga", "olga@pay.example", 2_000_00)
	payout.Set("idempotency_key", uuid.NewString())
	res := ops.post("/users/"+owes.ID+"/payouts", payout)
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantBody(t, res, "collect their W-9")
	if n, _ := h.store.CountOpenApprovals(t.Context()); n != 0 {
		t.Fatalf("%d approvals held for a payout the service refuses", n)
	}

	pat := h.payee("Pat", "pat@pay.example", 1_990_00) // $1,990.00 in the wallet and paid this year
	payout.Set("idempotency_key", uuid.NewString())
	a := h.approvalOf(ops.post("/users/"+pat.ID+"/payouts", payout))
	page := admin.get(paths.Approval(a.ID))
	wantBody(t, page, `data-testid="approval-checks"`, "find nothing that would refuse it now")

	h.pay(pat, 10_00) // reaches the $2,000.00 threshold while the payout waits
	for _, who := range []struct {
		name  string
		agent *agent
	}{{"the approver", admin}, {"the maker, who may pay", ops}} {
		t.Run(who.name, func(t *testing.T) {
			wantBody(t, who.agent.get(paths.Approval(a.ID)), "The service would refuse this payout now", "collect their W-9")
		})
	}
	t.Run("a role that may neither pay nor approve", func(t *testing.T) {
		page := manager.get(paths.Approval(a.ID))
		wantStatus(t, page, http.StatusOK)
		if strings.Contains(page.body, "approval-checks") || strings.Contains(page.body, "W-9") {
			t.Error("the preflight is shown to a role that may not pay")
		}
	})
}

// TestApprovalShowsBulkPreflight: a held bulk file's approval page shows, row by row, what the
// service's preflight would refuse now, to those who may pay or approve.
func TestApprovalShowsBulkPreflight(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.Approvers = []dashstore.Role{dashstore.RoleAdmin}
	}})
	h.deposit(10_000_00)
	ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
	ops, _ := h.signedIn(dashstore.RoleOperations)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	manager, _ := h.signedIn(dashstore.RoleManager)
	id := ops.uploadBulk("user,amount\n" + ada.Email + ",600.00\n" + bob.Email + ",500.00\n")
	a := h.approvalOf(ops.post("/bulk/"+id+"/confirm", nil))
	wantBody(t, admin.get(paths.Approval(a.ID)), `data-testid="approval-checks"`, "find nothing that would refuse a row of the file now")

	if _, err := h.payouts.DeleteUser(t.Context(), bob.ID); err != nil { // gone while the file waits
		t.Fatal(err)
	}
	for _, who := range []struct {
		name  string
		agent *agent
	}{{"the approver", admin}, {"the maker, who may pay", ops}} {
		t.Run(who.name, func(t *testing.T) {
			page := who.agent.get(paths.Approval(a.ID))
			wantBody(t, page, "The service would refuse these rows of the file now", "Row 2 ("+bob.Email+")")
			if strings.Contains(page.body, "Row 1 (") {
				t.Error("a row the service accepts is listed as refused")
			}
		})
	}
	t.Run("a role that may neither pay nor approve", func(t *testing.T) {
		page := manager.get(paths.Approval(a.ID))
		wantStatus(t, page, http.StatusOK)
		if strings.Contains(page.body, "approval-checks") {
			t.Error("the preflight is shown to a role that may not pay")
		}
	})
}

// TestApprovalShowsPayoutRequestPreflight: the page of a payout request from the API shows what
// approving it would meet now (here the W-9 its payee owes, which the link it sends would meet
// on its claim) to those who may pay or approve, before they approve. The public API can review
// no request, and the page says so.
func TestApprovalShowsPayoutRequestPreflight(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public, handlers: func(c *handlers.Config) {
				c.Approvals.Approvers = []dashstore.Role{dashstore.RoleAdmin}
			}})
			h.deposit(10_000_00)
			ops, _ := h.signedIn(dashstore.RoleOperations)
			admin, _ := h.signedIn(dashstore.RoleAdmin)
			manager, _ := h.signedIn(dashstore.RoleManager)
			owes := h.payee("Olga", "olga@pay.example", 2_000_00)
			fine := h.payee("Fay", "fay@pay.example", 0)
			request := func(u *payouts.User) string {
				r, err := h.payouts.CreatePayoutRequest(t.Context(), payouts.CreatePayoutRequestRequest{UserID: u.ID, Amount: 15_00})
				if err != nil {
					t.Fatal(err)
				}
				return paths.PayoutRequest(r.ID)
			}
			owed, clear := request(owes), request(fine)
			if b.public {
				page := admin.get(owed)
				wantBody(t, page, "Decide it on the Dots dashboard")
				if strings.Contains(page.body, "approval-checks") {
					t.Error("the public API's request shows checks it cannot have")
				}
				return
			}
			wantBody(t, admin.get(clear), `data-testid="approval-checks"`, "find nothing that would refuse it now")
			for _, who := range []struct {
				name  string
				agent *agent
			}{{"the approver", admin}, {"an operator who may pay", ops}} {
				t.Run(who.name, func(t *testing.T) {
					wantBody(t, who.agent.get(owed), `data-testid="approval-checks"`, "Approving it now would meet these problems:", "collect their W-9")
				})
			}
			t.Run("a role that may neither pay nor approve", func(t *testing.T) {
				page := manager.get(owed)
				wantStatus(t, page, http.StatusOK)
				if strings.Contains(page.body, "approval-checks") || strings.Contains(page.body, "W-9") {
					t.Error("the preflight is shown to a role that may not pay")
				}
			})
		})
	}
}

// TestApprovalShowsPayoutLinkPreflight: a held payout link whose payee's claim became refusable
// while it waits (their payments this year passed the 1099 threshold) says so on its approval
// page before anyone approves.
func TestApprovalShowsPayoutLinkPreflight(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.deposit(10_000_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	lou := h.payee("Lou", "lou@pay.example", 0)
	a := h.approvalOf(ops.post("/payout-links", url.Values{"amount": {"1500.00"}, "user_id": {lou.ID},
		"delivery.method": {"link"}, "idempotency_key": {uuid.NewString()}}))
	wantBody(t, admin.get(paths.Approval(a.ID)), `data-testid="approval-checks"`, "find nothing that would refuse it now")
	h.pay(lou, 600_00) // $600.00 now, and the claim's $1,500.00: past the $2,000.00 threshold
	wantBody(t, admin.get(paths.Approval(a.ID)), "The service would refuse this link or its claim now:", "collect their W-9")
}

// TestApprovalShowsTransferPreflight: money into a user's wallet held for approval says on its
// approval page that the app's wallet can no longer pay it, once it cannot.
func TestApprovalShowsTransferPreflight(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.deposit(2_000_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	tess := h.payee("Tess", "tess@pay.example", 0)
	a := h.approvalOf(ops.post(paths.User(tess.ID)+"/transfers", url.Values{"amount": {"1500.00"},
		"direction": {pages.DirectionToUser}, "idempotency_key": {uuid.NewString()}}))
	wantBody(t, admin.get(paths.Approval(a.ID)), `data-testid="approval-checks"`, "find nothing that would refuse it now")
	h.pay(h.payee("Uma", "uma@pay.example", 0), 1_000_00) // the app's wallet keeps $1,000.00
	wantBody(t, admin.get(paths.Approval(a.ID)), "The service would refuse this transfer now:")
}

// TestApprovingRefusedByPreflight: what the service's preflight refuses cannot be approved, on
// the same rule as the forms: approving a payout request from the API whose payee owes a W-9
// (it would make a link its payee could not finish) or a held payout that became refusable
// while it waited answers with the reason and leaves the request open, nothing made; once the
// W-9 is filed, approving goes through.
func TestApprovingRefusedByPreflight(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{handlers: func(c *handlers.Config) {
		c.Approvals.Approvers = []dashstore.Role{dashstore.RoleAdmin}
	}})
	h.deposit(10_000_00)
	ops, _ := h.signedIn(dashstore.RoleOperations)
	admin, _ := h.signedIn(dashstore.RoleAdmin)

	t.Run("payout request from the API", func(t *testing.T) {
		owes := h.payee("Olga", "olga@pay.example", 2_000_00)
		r, err := h.payouts.CreatePayoutRequest(t.Context(), payouts.CreatePayoutRequestRequest{UserID: owes.ID, Amount: 15_00})
		if err != nil {
			t.Fatal(err)
		}
		res := admin.post(paths.PayoutRequestReview(r.ID), decide("approve", ""))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Not approved", "collect their W-9")
		if got, err := h.payouts.GetPayoutRequest(t.Context(), r.ID); err != nil || got.Status != payouts.RequestCreated || got.PayoutLink != nil {
			t.Fatalf("after a refused approval the request is %+v, %v; want it open, nothing made", got, err)
		}
		h.w9Of(owes)
		wantRedirect(t, admin.post(paths.PayoutRequestReview(r.ID), decide("approve", "")), paths.PayoutRequest(r.ID))
	})

	t.Run("held payout", func(t *testing.T) {
		pat := h.payee("Pat", "pat@pay.example", 1_990_00)
		a := h.approvalOf(ops.post("/users/"+pat.ID+"/payouts", url.Values{"platform": {"default"}, "amount": {"1500.00"},
			"idempotency_key": {uuid.NewString()}}))
		h.pay(pat, 10_00) // reaches the threshold while the payout waits
		res := admin.post(paths.ApprovalDecision(a.ID), decide("approve", ""))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantBody(t, res, "Not approved", "collect their W-9")
		if got, err := h.store.Approval(t.Context(), a.ID); err != nil || got.Status != dashstore.ApprovalPending {
			t.Fatalf("after a refused approval the approval is %+v, %v; want it pending", got, err)
		}
	})
}
