package service_test

import (
	"testing"

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
