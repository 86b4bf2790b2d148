package service_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"disburse/payouts"
	"disburse/service"
	"disburse/store"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestPayoutSmoke(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	svc, err := service.New(st, service.Config{EncryptionKey: make([]byte, 32), PublicURL: "http://x"}, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cred, _ := svc.CreateApp(ctx, "Acme")
	appID := cred.AppID
	u, _ := svc.CreateUser(ctx, appID, payouts.CreateUserRequest{FirstName: "Ada", LastName: "L", Email: "ada@example.com", CountryCode: "1", PhoneNumber: "5555550100"})
	svc.Deposit(ctx, appID, appID, payouts.DepositRequest{Amount: 100000})
	if _, err := svc.AddPayoutMethod(ctx, appID, u.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"}); err != nil {
		t.Fatal(err)
	}
	tr, err := svc.CreatePayout(ctx, appID, payouts.CreatePayoutRequest{UserID: u.ID, Amount: 5000, Platform: "paypal", Fund: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %+v", tr.Status, tr.Transactions)
	got, _ := svc.GetUser(ctx, appID, u.ID)
	t.Logf("wallet %+v", got.Wallet)
	clk.Add(10 * time.Second)
	n, err := svc.SettleDue(ctx, 10)
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	tr, _ = svc.GetTransfer(ctx, appID, tr.ID)
	t.Logf("%s %+v", tr.Status, tr.Transactions)
	if err := svc.CheckLedger(ctx, appID); err != nil {
		t.Fatal(err)
	}
	link, _, err := svc.CreatePayoutLink(ctx, appID, payouts.CreatePayoutLinkRequest{Amount: 2000, Payee: &payouts.Payee{Email: "bob@example.com"}, Delivery: &payouts.Delivery{Method: "email"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", link)
	if n, err := svc.DeliverDue(ctx, 10); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	app, _ := svc.GetApp(ctx, appID, appID)
	t.Logf("app %+v", app.Wallet)
	if _, err := svc.ClaimPayoutLink(ctx, link.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Withdraw(ctx, appID, u.ID, "", "", link.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.CheckLedger(ctx, appID); err != nil {
		t.Fatal(err)
	}
}
