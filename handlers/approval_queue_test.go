package handlers_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// TestApprovalQueuePastAPage: with more payout requests waiting than a list page holds, the
// overview counts them all and shows the truly oldest, and the approvals page shows the oldest
// page and says how many more wait.
func TestApprovalQueuePastAPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	maker, _ := h.addOperator("maker@example.com", dashstore.RoleOperations)
	u := h.createUser("Quinn", "Queue")
	held := h.heldApproval(maker) // older than every request
	const waiting = payouts.MaxLimit + 3
	requests := make([]*payouts.PayoutRequest, waiting)
	for i := range requests {
		requests[i] = h.payoutRequest(u)
	}
	count := strconv.Itoa(waiting + 1)

	t.Run("overview", func(t *testing.T) {
		res := manager.get("/overview")
		wantBody(t, res, `data-testid="approvals-count">`+count+` waiting<`, paths.Approval(held.ID))
		for _, r := range requests[:4] {
			wantBody(t, res, paths.PayoutRequest(r.ID))
		}
		if strings.Contains(res.body, paths.PayoutRequest(requests[4].ID)) {
			t.Error("the overview lists a sixth item")
		}
	})
	t.Run("approvals page", func(t *testing.T) {
		res := manager.get("/approvals")
		wantBody(t, res, count+" wait; these are the oldest "+strconv.Itoa(payouts.MaxLimit), paths.Approval(held.ID),
			paths.PayoutRequest(requests[0].ID), paths.PayoutRequest(requests[payouts.MaxLimit-2].ID))
		for _, r := range requests[payouts.MaxLimit-1:] {
			if strings.Contains(res.body, paths.PayoutRequest(r.ID)) {
				t.Errorf("the page of the oldest %d lists a newer request", payouts.MaxLimit)
			}
		}
	})
}
