package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/views/paths"
)

// TestApprovalShowsPreflight replays the finding of a held $1,500 payout approved with no W-9
// warning: a payout the service would refuse is not held but refused on its form; one that
// becomes refusable while it waits shows why on its approval page, to those who may pay or
// approve, before they approve.
func TestApprovalShowsPreflight(t *testing.T) {
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
