package handlers_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// settlePayouts moves the service's clock on past the sandbox rails' delay and settles (or fails)
// the payouts due, as its worker would: submitted, then settled.
func (h *harness) settlePayouts() {
	h.t.Helper()
	for range 2 {
		h.env.Clock.Advance(time.Minute)
		if _, err := h.env.Service.SettleDue(context.Background(), 1000); err != nil {
			h.t.Fatal(err)
		}
	}
}

// slowFailPayPal gives u a default PayPal with the sandbox's slow-fail trigger: its payouts are
// accepted, then failed at settlement.
func (h *harness) slowFailPayPal(u *payouts.User) {
	h.t.Helper()
	if _, err := h.payouts.AddPayoutMethod(context.Background(), u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: "slowfail." + u.FirstName + "@example.com", IsDefault: true}); err != nil {
		h.t.Fatal(err)
	}
}

// TestBulkRowsFollowedToTheEnd: a bulk row is paid when its payout completes, not when the
// service accepts it. A row the rail fails after sending, one held for review and one paid out
// are followed at three moments (sent, settled, released), and at each the job page, its result
// CSV, the Overview and the transfers' own status agree; a retry says per row what it does.
func TestBulkRowsFollowedToTheEnd(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public, sharedClock: true,
				// Without its worker the service settles payouts only when the test says.
				service: []servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
			ctx := context.Background()
			ada, bob, cy := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte"), h.createUser("Cy", "Press")
			h.payPalDefault(ada)
			h.payPalDefault(cy)
			// Bob's PayPal carries the sandbox's slow-fail trigger: accepted, then failed at settlement.
			h.slowFailPayPal(bob)
			h.deposit(500_00)
			a, _ := h.signedIn(dashstore.RoleOperations)
			id := a.uploadBulk("user,amount,memo,method\n" +
				ada.ID + ",10.00,,paypal\n" + // 1: paid once settled
				bob.ID + ",5.00,,paypal\n" + // 2: fails on the rail after sending
				cy.ID + ",13.13,,paypal\n") // 3: held for review
			wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
			a.waitBulk(id)

			// check compares the job page, the result CSV and every row's transfer in the service.
			check := func(moment string, outcomes []string, result string) {
				t.Helper()
				rows := a.resultRows(id)
				for i, r := range rows {
					if r[3] != outcomes[i] {
						t.Errorf("%s: result CSV row %d is %q, want %q (%v)", moment, i+1, r[3], outcomes[i], r)
					}
					if r[4] == "" {
						t.Errorf("%s: result CSV row %d has no transfer", moment, i+1)
						continue
					}
					tr, err := h.payouts.GetTransfer(ctx, r[4])
					if err != nil {
						t.Fatal(err)
					}
					if want := map[payouts.TransferStatus]string{payouts.TransferCompleted: dashstore.BulkPaid, payouts.TransferFailed: dashstore.BulkFailed,
						payouts.TransferFlagged: dashstore.BulkHeld, payouts.TransferPending: dashstore.BulkSent}[tr.Status]; r[3] != want {
						t.Errorf("%s: row %d is %q in the CSV, its transfer is %s", moment, i+1, r[3], tr.Status)
					}
				}
				page := a.get("/bulk/" + id)
				wantBody(t, page, result)
			}

			check("sent", []string{"sent", "sent", "held"}, "0 paid ($0.00), 2 sent, 1 held, 0 failed, 0 skipped.")
			if page := a.get("/bulk/" + id); !strings.Contains(page.body, "Held for review") || !strings.Contains(page.body, "Sent, not yet paid") {
				t.Errorf("the job page does not say which rows are sent or held:\n%s", page.body)
			}
			if !b.public {
				wantBody(t, a.get("/overview"), `data-testid="failed-total">0 failed:`)
			}

			h.settlePayouts()
			check("settled", []string{"paid", "failed", "held"}, "1 paid ($10.00), 0 sent, 1 held, 1 failed, 0 skipped.")
			page := a.get("/bulk/" + id)
			// The retry plan says that the failed row is not sent again: its request made a payout
			// that failed, and the same request gives that same payout back.
			wantBody(t, page, `data-testid="bulk-retry-row"`, "failed on the rail after it was sent", "0 of 1 pass now")
			if !b.public {
				wantBody(t, a.get("/overview"), `data-testid="failed-total">1 failed: 1 payout transfer`)
			}

			rows := a.resultRows(id)
			if _, err := h.payouts.ReviewTransfer(ctx, rows[2][4], payouts.ReviewTransferRequest{Action: payouts.ReviewRelease}); err != nil {
				t.Fatal(err)
			}
			h.settlePayouts()
			check("released", []string{"paid", "failed", "paid"}, "2 paid ($23.13), 0 sent, 0 held, 1 failed, 0 skipped.")
			if !b.public {
				wantBody(t, a.get("/overview"), `data-testid="failed-total">1 failed: 1 payout transfer`)
			}
			h.env.CheckLedger(t)
		})
	}
}

// TestBulkRowsFollowedInTheBackground: the dashboard's background follower records what became
// of a finished job's payouts without anyone opening the job's page, so its stored rows (which
// the result CSV and the Overview read) agree with the service's transfers.
func TestBulkRowsFollowedInTheBackground(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := newHarnessWith(t, harnessSetup{public: b.public, sharedClock: true,
				service: []servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
			ctx := context.Background()
			ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
			h.payPalDefault(ada)
			h.slowFailPayPal(bob)
			h.deposit(100_00)
			a, _ := h.signedIn(dashstore.RoleOperations)
			id := a.uploadBulk("user,amount,memo,method\n" + ada.ID + ",10.00,,paypal\n" + bob.ID + ",5.00,,paypal\n")
			wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
			a.waitBulk(id)

			stored := func() []string {
				t.Helper()
				rows, err := h.store.BulkRows(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r.Outcome)
				}
				return out
			}
			for _, step := range []struct {
				name   string
				settle bool
				want   []string
			}{
				{"sent", false, []string{dashstore.BulkSent, dashstore.BulkSent}},
				{"settled", true, []string{dashstore.BulkPaid, dashstore.BulkFailed}},
			} {
				if step.settle {
					h.settlePayouts()
				}
				if err := h.handlers.FollowBulkJobs(ctx); err != nil {
					t.Fatal(err)
				}
				if got := stored(); !slices.Equal(got, step.want) {
					t.Errorf("%s: stored rows %v, want %v", step.name, got, step.want)
				}
			}
		})
	}
}
