package service_test

import (
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

// TestPayoutLifecycle follows payouts through the sandbox rail on a controlled clock, checking
// both wallets to the cent and the ledger after every step.
func TestPayoutLifecycle(t *testing.T) {
	paypal := payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"}
	slowFail := payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "slowfail@example.com"}
	failNow := payouts.AddPayoutMethodRequest{Platform: payouts.PlatformVenmo, Handle: "fail-account"}
	tests := []struct {
		name        string
		method      payouts.AddPayoutMethodRequest
		userFunds   int64 // moved to the user before the payout
		req         payouts.CreatePayoutRequest
		wantStatus  payouts.TransferStatus // right after the request
		wantFinal   payouts.TransferStatus // after the rail's delay
		wantApp     payouts.Money          // app wallet at the end (deposit 1000.00)
		wantUser    payouts.Money          // user wallet at the end
		wantFeeLine bool
	}{
		{"success, platform pays the fee", paypal, 5000,
			payouts.CreatePayoutRequest{Amount: 5000, Platform: "paypal"},
			payouts.TransferPending, payouts.TransferCompleted, 100000 - 5000 - 25, 0, true},
		{"success, user pays the fee", paypal, 5000,
			payouts.CreatePayoutRequest{Amount: 5000, Platform: "paypal", PayoutFeeParty: payouts.FeePartyUser},
			payouts.TransferPending, payouts.TransferCompleted, 100000 - 5000, 0, true},
		{"success with fund", paypal, 0,
			payouts.CreatePayoutRequest{Amount: 5000, Platform: "default", Fund: true},
			payouts.TransferPending, payouts.TransferCompleted, 100000 - 5000 - 25, 0, true},
		{"failure with fund restores the app to the cent", slowFail, 0,
			payouts.CreatePayoutRequest{Amount: 5000, Platform: "paypal", Fund: true},
			payouts.TransferPending, payouts.TransferFailed, 100000, 0, true},
		{"failure without fund restores the user", slowFail, 7000,
			payouts.CreatePayoutRequest{Amount: 5000, Platform: "paypal", PayoutFeeParty: payouts.FeePartyUser},
			payouts.TransferPending, payouts.TransferFailed, 100000 - 7000, 7000, true},
		{"rejected at once", failNow, 5000,
			payouts.CreatePayoutRequest{Amount: 5000, Platform: "venmo"},
			payouts.TransferFailed, payouts.TransferFailed, 100000 - 5000, 5000, true},
		{"flagged amount is held", paypal, 5000,
			payouts.CreatePayoutRequest{Amount: 1313, Platform: "paypal"},
			payouts.TransferFlagged, payouts.TransferFlagged, 100000 - 5000, 5000, true},
		{"ach is free", payouts.AddPayoutMethodRequest{Platform: "ach", RoutingNumber: "011000015", AccountNumber: "12345678", AccountType: "savings"}, 3000,
			payouts.CreatePayoutRequest{Amount: 3000, Platform: "ach"},
			payouts.TransferPending, payouts.TransferCompleted, 100000 - 3000, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 100000)
			m := e.addMethod(t, e.user.ID, tc.method)
			if tc.userFunds > 0 {
				if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -tc.userFunds}); err != nil {
					t.Fatal(err)
				}
			}
			req := tc.req
			req.UserID = e.user.ID
			if req.Platform == "ach" {
				req.AccountID = m.ID
			}
			tr, err := e.svc.CreatePayout(e.ctx, e.app, req)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Status != tc.wantStatus || tr.Type != payouts.TransferPayout {
				t.Fatalf("after the request: %s %s, want %s payout", tr.Status, tr.Type, tc.wantStatus)
			}
			// Answered from what the request wrote and recorded, or read back: the same either way.
			if got, want := asJSON(t, tr), asJSON(t, e.transfer(t, tr.ID)); got != want {
				t.Fatalf("the request answered\n%s\na read answers\n%s", got, want)
			}
			e.checkLedger(t)
			if tr.Status == payouts.TransferPending {
				_, user := e.wallets(t, e.user.ID)
				if user.WithdrawableAmount != user.Amount-payouts.Money(req.Amount) {
					t.Fatalf("while pending the user's withdrawable %v does not exclude the reservation", user)
				}
			}
			e.settle(t, 4*time.Second) // before the rail's delay: nothing moves
			if got := e.transfer(t, tr.ID); got.Status != tc.wantStatus {
				t.Fatalf("settled early: %s", got.Status)
			}
			e.settle(t, 30*time.Second)
			final := e.transfer(t, tr.ID)
			if final.Status != tc.wantFinal {
				t.Fatalf("final status %s (%s), want %s", final.Status, final.FailureReason, tc.wantFinal)
			}
			// The last event tells the payout as a read does: rendered from what the
			// settlement wrote, its postings as it settled them.
			events, err := e.svc.ListEvents(e.ctx, e.app, payouts.Page{}, payouts.EventFilter{ObjectID: tr.ID})
			if err != nil || len(events.Data) == 0 {
				t.Fatalf("events of the payout: %v, %v", events, err)
			}
			if got, want := string(events.Data[0].Data), asJSON(t, final); got != want {
				t.Errorf("the last event (%s) says\n%s\na read answers\n%s", events.Data[0].Type, got, want)
			}
			app, user := e.wallets(t, e.user.ID)
			if app.Amount != tc.wantApp || user.Amount != tc.wantUser {
				t.Fatalf("app %v, user %v; want %v and %v", app.Amount, user.Amount, tc.wantApp, tc.wantUser)
			}
			fee := false
			for _, line := range final.Transactions {
				fee = fee || line.Type == payouts.TransactionFee
			}
			if fee != tc.wantFeeLine {
				t.Fatalf("fee line present = %v, want %v: %+v", fee, tc.wantFeeLine, final.Transactions)
			}
		})
	}
}

func TestPayoutValidation(t *testing.T) {
	e := newEnv(t, 100000)
	ach := e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "ach", RoutingNumber: "011000015", AccountNumber: "12345678", AccountType: "checking"})
	bare := e.newUser(t, "bare@example.com", "4155550111")
	tests := []struct {
		name string
		req  payouts.CreatePayoutRequest
		code string
	}{
		{"no user", payouts.CreatePayoutRequest{Amount: 100, Platform: "paypal"}, payouts.EInvalidInput},
		{"zero amount", payouts.CreatePayoutRequest{UserID: e.user.ID, Platform: "paypal"}, payouts.EInvalidInput},
		{"unknown platform", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "zelle"}, payouts.EInvalidInput},
		{"ach without account", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "ach"}, payouts.EInvalidInput},
		{"no paypal method", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "paypal", Fund: true}, payouts.EUserInfoMissing},
		{"no default method", payouts.CreatePayoutRequest{UserID: bare.ID, Amount: 100, Platform: "default", Fund: true}, payouts.EUserInfoMissing},
		{"account of another platform", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "venmo", AccountID: ach.ID}, payouts.EInvalidInput},
		{"unknown user", payouts.CreatePayoutRequest{UserID: "00000000-0000-4000-8000-000000000000", Amount: 100, Platform: "paypal"}, payouts.ENotFound},
		{"user has no money", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "ach", AccountID: ach.ID}, payouts.EInsufficientFunds},
		{"fee exceeds amount", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 0, Platform: "ach", AccountID: ach.ID, PayoutFeeParty: "user"}, payouts.EInvalidInput},
		{"app lacks funds", payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100001, Platform: "ach", AccountID: ach.ID, Fund: true}, payouts.EInsufficientFunds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.CreatePayout(e.ctx, e.app, tc.req)
			wantCode(t, err, tc.code)
			app, _ := e.wallets(t, e.user.ID)
			if app.Amount != 100000 || app.WithdrawableAmount != 100000 {
				t.Fatalf("a refused payout moved money: %v", app)
			}
		})
	}
}

// TestRestartSettlesOnce stops the service with payouts on the rail, starts a new one on the same
// database, and sees each payout complete exactly once, even with two workers racing.
func TestRestartSettlesOnce(t *testing.T) {
	e := newEnv(t, 100000)
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
	var ids []string
	for i := 0; i < 5; i++ {
		tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 1000, Platform: "paypal", Fund: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	e.st.Close()
	e.open(t) // a new process on the same file
	second := e.svc
	e.open(t) // and a second instance beside it
	e.clock.Advance(time.Minute)
	done := make(chan int, 2)
	go func() { n, _ := second.SettleDue(e.ctx, 100); done <- n }()
	go func() { n, _ := e.svc.SettleDue(e.ctx, 100); done <- n }()
	total := <-done + <-done
	if total != 5 {
		t.Fatalf("the two workers settled %d payouts, want 5", total)
	}
	for _, id := range ids {
		tr := e.transfer(t, id)
		if tr.Status != payouts.TransferCompleted {
			t.Fatalf("payout %s is %s", id, tr.Status)
		}
	}
	app, user := e.wallets(t, e.user.ID)
	if app.Amount != 100000-5*(1000+25) || user.Amount != 0 {
		t.Fatalf("app %v user %v after settlement", app, user)
	}
	if n := e.settle(t, time.Hour); n != 0 {
		t.Fatalf("%d payouts settled again", n)
	}
}

func TestReviewFlaggedTransfer(t *testing.T) {
	for _, release := range []bool{true, false} {
		e := newEnv(t, 100000)
		e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
		tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 1313, Platform: "paypal", Fund: true})
		if err != nil || tr.Status != payouts.TransferFlagged {
			t.Fatalf("flag trigger: %v %v", tr, err)
		}
		if n := e.settle(t, time.Hour); n != 0 {
			t.Fatal("a flagged payout settled without review")
		}
		action := payouts.ReviewRelease
		if !release {
			action = payouts.ReviewReject
		}
		got, err := e.svc.ReviewTransfer(e.ctx, e.app, tr.ID, payouts.ReviewTransferRequest{Action: action})
		if err != nil {
			t.Fatal(err)
		}
		want := payouts.TransferPending
		if !release {
			want = payouts.TransferFailed
		}
		if got.Status != want {
			t.Fatalf("after review (release=%v): %s", release, got.Status)
		}
		e.settle(t, time.Minute)
		_, err = e.svc.ReviewTransfer(e.ctx, e.app, tr.ID, payouts.ReviewTransferRequest{Action: action})
		wantCode(t, err, payouts.EInvalidTransaction)
		app, _ := e.wallets(t, e.user.ID)
		if !release && app.Amount != 100000 {
			t.Fatalf("rejected funded payout left app at %v", app.Amount)
		}
	}
}

func TestAppStatsAndHistory(t *testing.T) {
	e := newEnv(t, 100000)
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
	ok, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 4000, Platform: "paypal", Fund: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 1313, Platform: "paypal", Fund: true}); err != nil {
		t.Fatal(err)
	}
	stats, err := e.svc.AppStats(e.ctx, e.app, e.app, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Days) != 30 || stats.Today.Date != "2026-03-02" || stats.Today.Payouts != 4000 || stats.Today.PayoutCount != 1 ||
		stats.Today.Deposits != 100000 || stats.Flagged != 1 || stats.Pending != 1 {
		t.Fatalf("stats = %+v", stats)
	}
	e.settle(t, time.Minute)
	got := e.transfer(t, ok.ID)
	var seen []payouts.TransferStatus
	for _, c := range got.StatusHistory {
		seen = append(seen, c.Status)
	}
	if len(seen) != 2 || seen[0] != payouts.TransferPending || seen[1] != payouts.TransferCompleted {
		t.Fatalf("history = %v", seen)
	}
	_, err = e.svc.AppStats(e.ctx, e.app, e.app, 400, "")
	wantCode(t, err, payouts.EInvalidInput)
}
