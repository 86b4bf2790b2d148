package service_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestBatch1099Threshold pays a user across the year's 1099 threshold ($2,000 in 2026) in one
// batch, whose chunk holds its yearly payments back: the crossing is seen by the item that
// crosses, and an item undone (an overdraft) counts for nothing.
func TestBatch1099Threshold(t *testing.T) {
	for _, tc := range []struct {
		name    string
		amounts []int64 // paid to the user; an amount over the app's $10,000 overdraws
		exempt  int     // the index of a tax-exempt item
		failed  int     // the index of the item that must fail
		flagged bool
		wallet  payouts.Money
	}{
		{name: "crossed", amounts: []int64{150_000, 500_000, 50_000}, exempt: 1, failed: -1, flagged: true, wallet: 700_000},
		{name: "crossing item overdraws", amounts: []int64{150_000, 2_000_000, 10_000}, exempt: -1, failed: 1, wallet: 160_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, dsn string) {
				e := newEnvOn(t, dsn, nil, 1_000_000)
				items := make([]payouts.TransferBatchItem, len(tc.amounts))
				for i, a := range tc.amounts {
					items[i] = payouts.TransferBatchItem{UserID: e.user.ID, Amount: -a, TaxExempt: i == tc.exempt}
				}
				b, err := e.svc.CreateTransferBatch(e.ctx, e.app, payouts.CreateTransferBatchRequest{Items: items})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := e.svc.ProcessBatches(e.ctx, 10); err != nil {
					t.Fatal(err)
				}
				if b, err = e.svc.GetTransferBatch(e.ctx, e.app, b.ID); err != nil || b.Status != payouts.BatchCompleted {
					t.Fatalf("batch %+v, %v", b, err)
				}
				for i, it := range b.Items {
					if (it.Error != nil) != (i == tc.failed) {
						t.Errorf("item %d: transfer %v, error %v", i, it.TransferID, it.Error)
					}
				}
				u, err := e.svc.GetUser(e.ctx, e.app, e.user.ID)
				if err != nil {
					t.Fatal(err)
				}
				if u.Compliance.MustCollect1099 != tc.flagged || u.Wallet.Amount != tc.wallet {
					t.Errorf("user must collect 1099 %v, wallet %v; want %v, %v", u.Compliance.MustCollect1099,
						u.Wallet.Amount, tc.flagged, tc.wallet)
				}
			})
		})
	}
}

// TestBatchItemKeys runs a batch whose chunk claims its items' keys in one statement: a fresh key
// makes one transfer; a key taken earlier with the same request replays, with another request is
// refused; and the key of an item that failed is free again afterwards.
func TestBatchItemKeys(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 10_000)
		key := func(n int) string { return fmt.Sprintf("40000000-0000-4000-8000-%012d", n) }
		pay := func(amount int64, k string) (*payouts.Transfer, error) {
			return e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -amount, IdempotencyKey: k})
		}
		earlier, err := pay(1_00, key(3))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pay(2_00, key(4)); err != nil {
			t.Fatal(err)
		}
		items := []payouts.TransferBatchItem{
			{UserID: e.user.ID, Amount: -5_00, IdempotencyKey: key(1)},
			{UserID: e.user.ID, Amount: -1_000_00, IdempotencyKey: key(2)}, // overdraws
			{UserID: e.user.ID, Amount: -1_00, IdempotencyKey: key(3)},     // replays earlier
			{UserID: e.user.ID, Amount: -3_00, IdempotencyKey: key(4)},     // another request
		}
		b, err := e.svc.CreateTransferBatch(e.ctx, e.app, payouts.CreateTransferBatchRequest{Items: items})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.ProcessBatches(e.ctx, 10); err != nil {
			t.Fatal(err)
		}
		if b, err = e.svc.GetTransferBatch(e.ctx, e.app, b.ID); err != nil {
			t.Fatal(err)
		}
		got := b.Items
		if got[0].TransferID == nil || got[1].Error == nil || got[2].TransferID == nil || *got[2].TransferID != earlier.ID || got[3].Error == nil {
			t.Fatalf("items %+v", got)
		}
		if _, err := e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: 1_000_00}); err != nil {
			t.Fatal(err)
		}
		again, err := pay(1_000_00, key(2))
		if err != nil || again.ID == "" {
			t.Fatalf("the failed item's key afterwards: %+v, %v", again, err)
		}
		if _, user := e.wallets(t, e.user.ID); user.Amount != 1_008_00 {
			t.Errorf("user wallet %v, want $1,008.00", user.Amount)
		}
	})
}

// TestBatchItemsThatFailLeaveNothing runs a chunk whose items fail in every way an item can,
// among items that succeed, in the one transaction of the chunk: each failed item leaves no
// transfer, posting, event or key behind, and the items around it stand. A balance transfer
// decides everything that can refuse it before its first write, so no item needs a savepoint.
func TestBatchItemsThatFailLeaveNothing(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 100_00)
		bob := e.newUser(t, "bob@example.com", "4155550101")
		key := func(n int) string { return fmt.Sprintf("50000000-0000-4000-8000-%012d", n) }
		pay := func(userID string, amount int64, k string) (*payouts.Transfer, error) {
			return e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: userID, Amount: amount, IdempotencyKey: k})
		}
		if _, err := pay(bob.ID, -5_00, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := pay(bob.ID, -1_00, key(4)); err != nil { // expires before the batch runs
			t.Fatal(err)
		}
		e.clock.Advance(25 * time.Hour)
		if _, err := pay(bob.ID, -1_00, key(3)); err != nil { // taken, for another request
			t.Fatal(err)
		}
		count := func() (transfers, events int) {
			t.Helper()
			ts, err := e.svc.ListTransfers(e.ctx, e.app, payouts.Page{Limit: 100}, payouts.TransferFilter{})
			if err != nil {
				t.Fatal(err)
			}
			es, err := e.svc.ListEvents(e.ctx, e.app, payouts.Page{Limit: 100}, payouts.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			return len(ts.Data), len(es.Data)
		}
		transfersBefore, eventsBefore := count()

		items := []struct {
			name string
			item payouts.TransferBatchItem
			fail bool
		}{
			{"app pays ada", payouts.TransferBatchItem{UserID: e.user.ID, Amount: -10_00, IdempotencyKey: key(1)}, false},
			{"app pays more than it holds", payouts.TransferBatchItem{UserID: e.user.ID, Amount: -1_000_00, IdempotencyKey: key(2)}, true},
			{"bob pays more than he holds", payouts.TransferBatchItem{UserID: bob.ID, Amount: 50_00, AllowDebit: true}, true},
			{"no such user", payouts.TransferBatchItem{UserID: "60000000-0000-4000-8000-000000000001", Amount: -1_00}, true},
			{"key taken by another request", payouts.TransferBatchItem{UserID: e.user.ID, Amount: -2_00, IdempotencyKey: key(3)}, true},
			{"expired key, then app pays more than it holds", payouts.TransferBatchItem{UserID: bob.ID, Amount: -1_000_00, IdempotencyKey: key(4)}, true},
			{"ada pays the app back", payouts.TransferBatchItem{UserID: e.user.ID, Amount: 1_00, AllowDebit: true}, false},
		}
		req := payouts.CreateTransferBatchRequest{}
		for _, it := range items {
			req.Items = append(req.Items, it.item)
		}
		b, err := e.svc.CreateTransferBatch(e.ctx, e.app, req)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := e.svc.ProcessBatches(e.ctx, 10); err != nil || n != 1 {
			t.Fatalf("ran %d chunks: %v", n, err)
		}
		if b, err = e.svc.GetTransferBatch(e.ctx, e.app, b.ID); err != nil || b.Status != payouts.BatchCompleted {
			t.Fatalf("batch %+v, %v", b, err)
		}
		for i, it := range items {
			t.Run(it.name, func(t *testing.T) {
				got := b.Items[i]
				if (got.Error != nil) != it.fail || (got.TransferID == nil) != it.fail {
					t.Errorf("transfer %v, error %v; want failed %v", got.TransferID, got.Error, it.fail)
				}
			})
		}

		transfers, events := count()
		// Two transfers, each with its created, completed and updated events, and the batch's.
		if transfers != transfersBefore+2 || events != eventsBefore+2*3+1 {
			t.Errorf("after the batch: %d transfers and %d events, want %d and %d",
				transfers, events, transfersBefore+2, eventsBefore+2*3+1)
		}
		if app, ada := e.wallets(t, e.user.ID); app.Amount != 100_00-5_00-1_00-1_00-10_00+1_00 || ada.Amount != 9_00 {
			t.Errorf("wallets: app %v, ada %v", app.Amount, ada.Amount)
		}
		if _, bobs := e.wallets(t, bob.ID); bobs.Amount != 7_00 {
			t.Errorf("bob's wallet %v, want $7.00", bobs.Amount)
		}
		// The failed items' keys are free again: each makes its request's transfer now.
		for _, k := range []string{key(2), key(4)} {
			if _, err := pay(bob.ID, -1_00, k); err != nil {
				t.Errorf("key %s after its item failed: %v", k, err)
			}
		}
	})
}
