package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/handlers"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestBulkBatchThatDoesNotFinish: a job stops waiting for a transfer batch that has not finished
// and says its rows are still running, not failed, since the batch may yet pay them; checking
// again later asks that batch, sends nothing again, and records how the rows ended.
//
// Not parallel: the check again must see the finished batch within the job's 50ms wait, which a
// loaded process can miss.
func TestBulkBatchThatDoesNotFinish(t *testing.T) {
	h := newHarnessWith(t, harnessSetup{
		// Without its worker the service leaves the batch pending until the test runs it, so the
		// job's short wait runs out whatever the machine's speed.
		service:  []servicetest.Option{servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })},
		handlers: func(c *handlers.Config) { c.BulkBatchWait, c.BulkPoll = 50*time.Millisecond, 10*time.Millisecond },
	})
	ctx := context.Background()
	ada, bob := h.createUser("Ada", "Lovelace"), h.createUser("Bobby", "Byte")
	h.deposit(100_00)
	a, _ := h.signedIn(dashstore.RoleOperations)
	id := a.uploadBulk("user,amount\n" + ada.Email + ",10.00\n" + bob.Email + ",2.50\n")

	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	done := a.waitBulk(id)
	wantBody(t, done, "0 paid", "0 failed", "2 still running", `data-testid="bulk-unsettled"`, "may yet be paid",
		"Check the running rows again")
	batches, err := h.payouts.ListTransferBatches(ctx, payouts.Page{Limit: 10})
	if err != nil || len(batches.Data) != 1 {
		t.Fatalf("transfer batches %+v, %v; want the job's one", batches, err)
	}
	batchID := batches.Data[0].ID
	for _, r := range a.resultRows(id) {
		if r[3] != dashstore.BulkUnsettled || r[4] != "" || !strings.Contains(r[5], batchID) {
			t.Errorf("result row %v, want unsettled in batch %s", r, batchID)
		}
	}

	if _, err := h.env.Service.ProcessBatches(ctx, 100); err != nil {
		t.Fatal(err)
	}
	wantRedirect(t, a.post("/bulk/"+id+"/confirm", nil), "/bulk/"+id)
	done = a.waitBulk(id)
	wantStatus(t, done, http.StatusOK)
	wantBody(t, done, "2 paid ($12.50)", "0 failed")
	if strings.Contains(done.body, "still running") {
		t.Error("rows of the finished batch still show as running")
	}
	if ada2, bob2 := h.walletOf(ada.ID), h.walletOf(bob.ID); ada2 != 10_00 || bob2 != 2_50 {
		t.Errorf("wallets Ada %v, Bob %v; want $10.00 and $2.50", ada2, bob2)
	}
	if again, err := h.payouts.ListTransferBatches(ctx, payouts.Page{Limit: 10}); err != nil || len(again.Data) != 1 {
		t.Errorf("checking again sent another batch: %+v, %v", again, err)
	}
	for _, r := range a.resultRows(id) {
		if r[3] != dashstore.BulkPaid || r[4] == "" || r[5] != "" {
			t.Errorf("result row %v, want paid", r)
		}
	}
	h.env.CheckLedger(t)
}
