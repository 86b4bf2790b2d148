package service_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

func TestPayoutLinkCancel(t *testing.T) {
	e := newEnv(t, 10000)
	link, replayed, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 2500,
		Payee: &payouts.Payee{FirstName: "Bo", Email: "bo@example.com"}})
	if err != nil || replayed || link.Status != payouts.LinkDelivered || link.FlowID == nil || link.TransferID == nil {
		t.Fatalf("CreatePayoutLink = %+v, %v, %v", link, replayed, err)
	}
	app, _ := e.wallets(t, e.user.ID)
	if app.Amount != 10000 || app.WithdrawableAmount != 7500 {
		t.Fatalf("an open link must reserve the app's money: %v", app)
	}
	canceled, err := e.svc.CancelPayoutLink(e.ctx, e.app, link.ID)
	if err != nil || canceled.Status != payouts.LinkCanceled {
		t.Fatalf("CancelPayoutLink = %+v, %v", canceled, err)
	}
	app, _ = e.wallets(t, e.user.ID)
	if app.Amount != 10000 || app.WithdrawableAmount != 10000 {
		t.Fatalf("a canceled link must return the reservation: %v", app)
	}
	if tr := e.transfer(t, *link.TransferID); tr.Status != payouts.TransferFailed {
		t.Fatalf("the reservation transfer is %s", tr.Status)
	}
	_, err = e.svc.CancelPayoutLink(e.ctx, e.app, link.ID)
	wantCode(t, err, payouts.EInvalidTransaction)
}

func TestPayoutLinkClaimThenCancel(t *testing.T) {
	e := newEnv(t, 10000)
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "venmo", Handle: "ada-l"})
	link, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 2500, UserID: e.user.ID})
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := e.svc.ClaimPayoutLink(e.ctx, link.ID, e.user.ID)
	if err != nil || claimed.Status != payouts.LinkClaimed || *claimed.ClaimedUserID != e.user.ID {
		t.Fatalf("ClaimPayoutLink = %+v, %v", claimed, err)
	}
	app, user := e.wallets(t, e.user.ID)
	if app.Amount != 7500 || user.Amount != 2500 {
		t.Fatalf("after the claim: app %v, user %v", app, user)
	}
	_, err = e.svc.CancelPayoutLink(e.ctx, e.app, link.ID)
	wantCode(t, err, payouts.EInvalidTransaction)
	app2, user2 := e.wallets(t, e.user.ID)
	if app2 != app || user2 != user {
		t.Fatal("a refused cancel moved money")
	}
	_, err = e.svc.ClaimPayoutLink(e.ctx, link.ID, e.user.ID)
	wantCode(t, err, payouts.EInvalidTransaction)
	tr, err := e.svc.Withdraw(e.ctx, e.app, e.user.ID, "", 0, "", link.ID)
	if err != nil || tr.PayoutLinkID == nil || *tr.PayoutLinkID != link.ID {
		t.Fatalf("Withdraw = %+v, %v", tr, err)
	}
	if got, want := asJSON(t, tr), asJSON(t, e.transfer(t, tr.ID)); got != want {
		t.Fatalf("Withdraw answered\n%s\na read answers\n%s", got, want)
	}
	e.settle(t, time.Minute)
	if got := e.transfer(t, tr.ID); got.Status != payouts.TransferCompleted {
		t.Fatalf("the claimed payout is %s", got.Status)
	}
}

func TestPayoutLinkDelivery(t *testing.T) {
	e := newEnv(t, 10000)
	tests := []struct {
		name  string
		payee payouts.Payee
		via   payouts.DeliveryMethod
		want  payouts.PayoutLinkStatus
	}{
		{"email", payouts.Payee{Email: "bo@example.com"}, payouts.DeliveryEmail, payouts.LinkDelivered},
		{"sms", payouts.Payee{CountryCode: "1", PhoneNumber: "4155550123"}, payouts.DeliverySMS, payouts.LinkDelivered},
		{"bouncing email", payouts.Payee{Email: "bounce@example.com"}, payouts.DeliveryEmail, payouts.LinkDeliveryFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			payee := tc.payee
			link, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 100, Payee: &payee,
				Delivery: &payouts.Delivery{Method: tc.via}})
			if err != nil || link.Status != payouts.LinkDeliveryPending {
				t.Fatalf("CreatePayoutLink = %+v, %v", link, err)
			}
			if n, err := e.svc.DeliverDue(e.ctx, 10); n != 1 || err != nil {
				t.Fatalf("DeliverDue = %d, %v", n, err)
			}
			got, _ := e.svc.GetPayoutLink(e.ctx, e.app, link.ID)
			if got.Status != tc.want {
				t.Fatalf("status %s, want %s", got.Status, tc.want)
			}
		})
	}
	msgs, err := e.svc.Inbox(e.ctx, e.app, 10)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("inbox has %d messages, want 2: %v", len(msgs), err)
	}
	_, _, err = e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 100, Delivery: &payouts.Delivery{Method: "sms"}})
	wantCode(t, err, payouts.EInvalidInput)
}

func TestPayoutLinkIdempotency(t *testing.T) {
	e := newEnv(t, 10000)
	key := "5b0c5b7e-2f0b-4c39-9a53-0a3f5f2e6d11"
	first, replayed, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 100, IdempotencyKey: key})
	if err != nil || replayed {
		t.Fatal(err, replayed)
	}
	again, replayed, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 999, IdempotencyKey: key})
	if err != nil || !replayed || again.ID != first.ID || again.Amount != 100 {
		t.Fatalf("replay = %+v, %v, %v", again, replayed, err)
	}
	app, _ := e.wallets(t, e.user.ID)
	if app.WithdrawableAmount != 9900 {
		t.Fatalf("replay reserved again: %v", app)
	}
}

func TestIdempotencyKeyExpiry(t *testing.T) {
	e := newEnv(t, 10000)
	key := "6c1d6b8f-3a0c-4d4a-8b64-1b4f6a3f7e22"
	req := payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -100, IdempotencyKey: key}
	first, err := e.svc.CreateTransfer(e.ctx, e.app, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.svc.CreateTransfer(e.ctx, e.app, req)
	if err != nil || again.ID != first.ID {
		t.Fatalf("replay within the window = %v, %v", again, err)
	}
	req.Amount = -200
	_, err = e.svc.CreateTransfer(e.ctx, e.app, req)
	wantCode(t, err, payouts.EIdempotencyReused)
	e.clock.Advance(24*time.Hour + time.Second)
	if n, err := e.svc.PurgeIdempotencyKeys(e.ctx); n != 1 || err != nil {
		t.Fatalf("purged %d keys, %v", n, err)
	}
	later, err := e.svc.CreateTransfer(e.ctx, e.app, req)
	if err != nil || later.ID == first.ID {
		t.Fatalf("after 24 hours the key is free again: %v, %v", later, err)
	}
}

// TestRailPayoutNote: the rail is told what the payee is to read of a payout: the memo of the
// payout link it was claimed from, and the app's name (the whole note of a payout with no memo).
func TestRailPayoutNote(t *testing.T) {
	e, rail := newRailEnv(t, filepath.Join(t.TempDir(), "test.db"))
	link, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 2500, UserID: e.user.ID,
		Memo: "March rebate"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ClaimPayoutLink(e.ctx, link.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	claimed, err := e.svc.Withdraw(e.ctx, e.app, e.user.ID, "", 0, "", link.ID)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 1000,
		Platform: payouts.PlatformPayPal, Fund: true, TaxExempt: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id string
		want     [2]string
	}{
		{"claimed from a link", claimed.ID, [2]string{"March rebate", "Acme"}},
		{"no memo", plain.ID, [2]string{"", "Acme"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rail.notes[tc.id]; got != tc.want {
				t.Errorf("the rail was told memo and app %q, want %q", got, tc.want)
			}
		})
	}
}
