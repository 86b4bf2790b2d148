package service_test

import (
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// TestOrganizationLedgersMirror checks that CheckLedger holds after organization transfers both
// ways, and catches a half of one written alone.
func TestOrganizationLedgersMirror(t *testing.T) {
	e := newEnv(t, 0)
	org, err := e.svc.CreateOrganization(e.ctx, "Group")
	if err != nil {
		t.Fatal(err)
	}
	app, err := e.svc.CreateOrganizationApp(e.ctx, org.AppID, payouts.CreateAppRequest{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Deposit(e.ctx, app.ID, app.ID, payouts.DepositRequest{Amount: 100_00}); err != nil {
		t.Fatal(err)
	}
	for _, amount := range []int64{60_00, -25_00} {
		if _, err := e.svc.CreateOrganizationTransfer(e.ctx, org.AppID, payouts.CreateOrganizationTransferRequest{
			Amount: amount, APIAppID: app.ID}); err != nil {
			t.Fatalf("organization transfer %d: %v", amount, err)
		}
	}
	for _, id := range []string{org.AppID, app.ID} {
		if err := e.svc.CheckLedger(e.ctx, id); err != nil {
			t.Errorf("after organization transfers: %v", err)
		}
	}
	_, err = e.svc.CreateOrganizationTransfer(e.ctx, org.AppID, payouts.CreateOrganizationTransferRequest{Amount: -35_01, APIAppID: app.ID})
	wantCode(t, err, payouts.EInsufficientFunds)

	// The organization's half of a transfer without the app's: each ledger balances alone, the
	// pair does not.
	err = e.st.InTx(e.ctx, func(q service.Queries) error {
		wallet, err := q.EnsureAccount(e.ctx, org.AppID, ledger.AppWallet, "")
		if err != nil {
			return err
		}
		side, err := q.EnsureAccount(e.ctx, org.AppID, ledger.External, "app:"+app.ID)
		if err != nil {
			return err
		}
		p := &ledger.Posting{TransferID: "half", Debit: side.ID, Credit: wallet.ID, Amount: 1, Type: "balance",
			AppID: org.AppID, SourceName: "x", DestinationName: "y", Created: e.clock.Now()}
		m, err := ledger.NewMovement([]ledger.Change{{Op: ledger.OpPost, Posting: p}}, p.Created, func(int64) bool { return false })
		if err != nil {
			return err
		}
		return q.Apply(e.ctx, &service.Plan{Movement: &m})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.CheckLedger(e.ctx, org.AppID); err == nil {
		t.Error("CheckLedger passed a one-sided organization transfer")
	}
}

// TestBatchWorkersRace runs one batch with several workers at once: every item is made once.
func TestBatchWorkersRace(t *testing.T) {
	e := newEnv(t, 10_000_00)
	items := make([]payouts.TransferBatchItem, 600)
	for i := range items {
		items[i] = payouts.TransferBatchItem{UserID: e.user.ID, Amount: -1_00}
	}
	b, err := e.svc.CreateTransferBatch(e.ctx, e.app, payouts.CreateTransferBatchRequest{Items: items})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := e.svc.ProcessBatches(e.ctx, 10); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := e.svc.GetTransferBatch(e.ctx, e.app, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, it := range got.Items {
		if it.TransferID == nil || seen[*it.TransferID] {
			t.Fatalf("item %d: transfer %v, error %v", i, it.TransferID, it.Error)
		}
		seen[*it.TransferID] = true
	}
	if _, user := e.wallets(t, e.user.ID); got.Status != payouts.BatchCompleted || user.Amount != 600_00 {
		t.Errorf("batch %s, user wallet %v; want completed and $600.00", got.Status, user.Amount)
	}
}
