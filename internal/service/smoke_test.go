package service_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

func newService(t *testing.T) *service.Service {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := service.New(st, sandbox.Wire(service.Config{EncryptionKey: make([]byte, 32)}, nil, 0, 0), nil, sandbox.Inbox{Store: st, Key: make([]byte, 32)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	cred, err := svc.CreateApp(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	app, err := svc.Authenticate(ctx, cred.ClientID, cred.APIKey, "")
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.CreateUser(ctx, app.AppID, payouts.CreateUserRequest{FirstName: "Ada", LastName: "L", Email: "ada@example.com", CountryCode: "1", PhoneNumber: "4155550100"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Deposit(ctx, app.AppID, app.AppID, payouts.DepositRequest{Amount: 10000}); err != nil {
		t.Fatal(err)
	}
	tr, err := svc.CreateTransfer(ctx, app.AppID, payouts.CreateTransferRequest{UserID: u.ID, Amount: -2500})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", tr)
	_, err = svc.CreateTransfer(ctx, app.AppID, payouts.CreateTransferRequest{UserID: u.ID, Amount: 999999})
	if payouts.ErrorCode(err) != payouts.EInsufficientFunds {
		t.Fatalf("want insufficient, got %v", err)
	}
	got, _ := svc.GetUser(ctx, app.AppID, u.ID)
	if got.Wallet.Amount != 2500 {
		t.Fatalf("wallet %+v", got.Wallet)
	}
	if err := svc.CheckLedger(ctx, app.AppID); err != nil {
		t.Fatal(err)
	}
	m, err := svc.AddPayoutMethod(ctx, app.AppID, u.ID, payouts.AddPayoutMethodRequest{Platform: "ach", RoutingNumber: "011000015", AccountNumber: "123456789", AccountType: "checking"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", m)
	l, err := svc.ListTransfers(ctx, app.AppID, payouts.Page{}, payouts.TransferFilter{})
	if err != nil || len(l.Data) != 2 {
		t.Fatal(err, l)
	}
	txs, err := svc.ListTransactions(ctx, app.AppID, payouts.Page{}, payouts.TransactionFilter{UserID: u.ID})
	if err != nil || len(txs.Data) != 1 {
		t.Fatal(err, txs)
	}
	if err := svc.SubmitCompliance(ctx, app.AppID, u.ID, payouts.ComplianceRequest{W9: &payouts.W9{EntityType: "individual", FirstName: "A", LastName: "L", DateOfBirth: "1990-01-01", TIN: "123456789", Address: payouts.Address{Line1: "1 Main", City: "X", State: "CA", Country: "US", Postcode: "94000"}}}); err != nil {
		t.Fatal(err)
	}
	got, _ = svc.GetUser(ctx, app.AppID, u.ID)
	t.Logf("%+v", got)
}
