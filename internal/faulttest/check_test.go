package faulttest

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// waitSettled waits until no payout is pending on a rail.
func waitSettled(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		list, err := c.ListTransfers(ctx, payouts.Page{Limit: 1},
			payouts.TransferFilter{Type: payouts.TransferPayout, Status: payouts.TransferPending})
		if err != nil {
			t.Fatalf("list pending payouts: %v", err)
		}
		if len(list.Data) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("payout %s still pending 60s after the load stopped", list.Data[0].ID)
		}
	}
}

// verify checks, through c, that every acknowledged operation exists exactly once and that
// replaying its key answers the same transfer, that no other transfer exists, that every payout
// reached one final status, and that the money adds up to the cent with no wallet negative.
func (b *bank) verify(c *client.Client) {
	t := b.t
	t.Helper()
	ctx := context.Background()
	waitSettled(t, c)

	listed := map[string]int{}
	for tr, err := range c.AllTransfers(ctx, payouts.TransferFilter{}) {
		if err != nil {
			t.Fatalf("list transfers: %v", err)
		}
		listed[tr.ID]++
	}
	acked := map[string]bool{}
	var deposits, paidOut payouts.Money
	fee := service.DefaultFees()[payouts.PlatformPayPal]
	for _, o := range b.acked {
		acked[o.id] = true
		if n := listed[o.id]; n != 1 {
			t.Errorf("%s %s (key %s) is listed %d times, want once", o.kind, o.id, o.key, n)
		}
		if again, err := b.send(ctx, c, o); err != nil {
			t.Errorf("replaying key %s of %s %s: %v", o.key, o.kind, o.id, err)
		} else if again.ID != o.id {
			t.Errorf("replaying key %s of %s %s answered another transfer, %s", o.key, o.kind, o.id, again.ID)
		}
		tr, err := c.GetTransfer(ctx, o.id)
		if err != nil {
			t.Errorf("get %s %s: %v", o.kind, o.id, err)
			continue
		}
		if abs(int64(tr.Amount)) != o.amount {
			t.Errorf("%s %s: amount %d, want %d", o.kind, o.id, tr.Amount, o.amount)
		}
		switch o.kind {
		case opDeposit:
			deposits += tr.Amount
		case opPayout:
			checkFinal(t, tr)
			if tr.Status == payouts.TransferCompleted {
				paidOut += tr.Amount + fee
			}
		}
	}
	for id := range listed {
		if !acked[id] {
			t.Errorf("transfer %s exists but no operation was acknowledged with it", id)
		}
	}

	app, err := c.GetApp(ctx, b.creds.AppID)
	if err != nil {
		t.Fatalf("get app: %v", err)
	}
	checkWallet(t, "app", app.Wallet)
	held := app.Wallet.Amount
	for _, u := range b.users {
		got, err := c.GetUser(ctx, u.ID)
		if err != nil {
			t.Fatalf("get user %s: %v", u.ID, err)
		}
		checkWallet(t, "user "+u.ID, got.Wallet)
		held += got.Wallet.Amount
	}
	if deposits != held+paidOut {
		t.Errorf("deposits %s != wallets %s + paid out with fees %s", deposits, held, paidOut)
	}
}

// checkFinal checks a payout ended completed or failed, with exactly one final transition,
// last in its history.
func checkFinal(t *testing.T, tr *payouts.Transfer) {
	t.Helper()
	if tr.Status != payouts.TransferCompleted && tr.Status != payouts.TransferFailed {
		t.Errorf("payout %s ended %s", tr.ID, tr.Status)
	}
	finals := 0
	for _, h := range tr.StatusHistory {
		if h.Status == payouts.TransferCompleted || h.Status == payouts.TransferFailed {
			finals++
		}
	}
	n := len(tr.StatusHistory)
	if finals != 1 || tr.StatusHistory[n-1].Status != tr.Status {
		t.Errorf("payout %s: history %v, want one final transition, last", tr.ID, tr.StatusHistory)
	}
}

func checkWallet(t *testing.T, who string, w payouts.Wallet) {
	t.Helper()
	if w.Amount < 0 || w.WithdrawableAmount < 0 {
		t.Errorf("%s wallet is negative: %+v", who, w)
	}
}

func abs(n int64) int64 { return max(n, -n) }

// checkLedger opens the database the processes used, after they stopped, and runs the service's
// ledger invariants on the app.
func checkLedger(t *testing.T, db, appID string) {
	t.Helper()
	ctx := context.Background()
	key, err := payoutd.ParseKey(testKey)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.KeyLedger(ctx, key); err != nil { // its chains are under payoutd's key
		t.Fatal(err)
	}
	svc, err := service.New(st, sandbox.Wire(service.Config{EncryptionKey: key}, nil, 0, 0), nil,
		sandbox.Inbox{Store: st}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.CheckLedger(ctx, appID); err != nil {
		t.Error(err)
	}
}
