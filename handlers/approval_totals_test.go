package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

// TestApprovalTotalsHoldSplitRequests: payouts, payout links and money moved into a wallet, each
// just under the threshold, to one payee: the three that add up to $2,999.97 go, and the one that
// takes the payee past the limit of $3,000.00 in 24 hours waits, with the totals on its page. A
// bulk file of one small row to a payee already at the limit waits too.
func TestApprovalTotalsHoldSplitRequests(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{sharedClock: true})
	h.deposit(20_000_00)
	// Each case sends one request of an amount to its payee, and counts what reached the service.
	type splitCase struct {
		name string
		send func(amount string) response
		sent func() int
	}
	pat, mo, bea := h.largePayee("Pat", "Payout", 5000_00), h.createUser("Mo", "Money"), h.largePayee("Bea", "Bulk", 5000_00)
	h.afterSetup()
	ops, _ := h.signedIn(dashstore.RoleOperations)
	manager, _ := h.signedIn(dashstore.RoleManager)
	links := 0
	for _, tc := range []splitCase{
		{"payouts", func(amount string) response {
			return ops.post("/users/"+pat.ID+"/payouts", url.Values{"platform": {"default"}, "amount": {amount},
				"idempotency_key": {uuid.NewString()}})
		}, func() int { return h.payoutsOf(pat) }},
		{"payout links to one email, in any case", func(amount string) response {
			links++
			email := "Lin.Link@Example.com"
			if links%2 == 0 {
				email = " lin.link@example.COM"
			}
			return ops.post("/payout-links", url.Values{"payee.email": {email}, "delivery.method": {"link"},
				"amount": {amount}, "idempotency_key": {uuid.NewString()}})
		}, func() int {
			list, err := h.payouts.ListPayoutLinks(t.Context(), payouts.Page{Limit: 100}, payouts.PayoutLinkFilter{Search: "lin.link"})
			if err != nil {
				t.Fatal(err)
			}
			return len(list.Data)
		}},
		{"money moved into a wallet", func(amount string) response {
			return ops.post("/users/"+mo.ID+"/transfers", url.Values{"direction": {"to_user"}, "amount": {amount},
				"idempotency_key": {uuid.NewString()}})
		}, func() int { return int(h.walletOf(mo.ID) / 999_99) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 3 {
				res := tc.send("999.99")
				if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || strings.HasPrefix(loc, "/approvals/") {
					t.Fatalf("request %d of $999.99: status %d to %q, want it sent", i+1, res.StatusCode, loc)
				}
			}
			if n := tc.sent(); n != 3 {
				t.Fatalf("%d sent, want 3", n)
			}
			res := tc.send("999.99")
			a := h.approvalOf(res)
			if len(a.HeldFor) != 1 || a.HeldFor[0].Rule != dashstore.HoldPayee || a.HeldFor[0].Sent != 2999_97 {
				t.Errorf("held for %+v, want the payee's total of $2,999.97", a.HeldFor)
			}
			if n := tc.sent(); n != 3 {
				t.Errorf("%d sent after the fourth request, want still 3", n)
			}
			page := ops.get(paths.Approval(a.ID))
			wantBody(t, page, `data-testid="approval-held-for"`, "received $2,999.97 in the last 24 h; with this $999.99, $3,999.96: more than the limit of $3,000.00.")
			// Approved, it goes, and counts: the next small one waits too.
			wantRedirect(t, manager.post(paths.ApprovalDecision(a.ID), decide("approve", "")), paths.Approval(a.ID))
			if n := tc.sent(); n != 4 {
				t.Errorf("%d sent after the approval, want 4", n)
			}
			next := h.approvalOf(tc.send("0.01"))
			if len(next.HeldFor) != 1 || next.HeldFor[0].Sent != 3999_96 {
				t.Errorf("a cent more: held for %+v, want the approved one counted ($3,999.96)", next.HeldFor)
			}
		})
	}

	t.Run("a bulk file to a payee at the limit", func(t *testing.T) {
		u := bea
		for range 3 {
			wantRedirect(t, ops.post("/users/"+u.ID+"/payouts", url.Values{"platform": {"default"}, "amount": {"999.99"},
				"idempotency_key": {uuid.NewString()}}), "/users/")
		}
		id := ops.uploadBulk("user,amount\n" + u.ID + ",5.00\n")
		a := h.approvalOf(ops.post("/bulk/"+id+"/confirm", nil))
		if a.Kind != "bulk" || len(a.HeldFor) != 1 || a.HeldFor[0].Rule != dashstore.HoldPayee || a.HeldFor[0].Who != u.ID {
			t.Errorf("approval %s held for %+v, want the payee's total", a.Kind, a.HeldFor)
		}
	})

	t.Run("money back from a wallet is never held", func(t *testing.T) {
		u := h.fundedUser("Back", "Again", 5000_00)
		res := ops.post("/users/"+u.ID+"/transfers", url.Values{"direction": {"from_user"}, "amount": {"4000.00"}})
		if loc := res.Header.Get("Location"); strings.HasPrefix(loc, "/approvals/") {
			t.Errorf("money back to the app was held (%s)", loc)
		}
	})
}
