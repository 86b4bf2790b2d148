package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestContractOrganization drives the organization's endpoints and the app endpoints the public
// API added through the client, on both engines: success paths, then errors.
func TestContractOrganization(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		env := servicetest.Start(t, servicetest.WithDSN(dsn))
		orgCreds, err := env.Service.CreateOrganization(ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		// A base URL with a trailing slash works as well.
		org := newClient(t, env.URL+"/", orgCreds.ClientID, orgCreds.APIKey)
		app, err := org.CreateApp(ctx, payouts.CreateAppRequest{Name: "Shop"})
		if err != nil || app.Credentials == nil {
			t.Fatalf("CreateApp = %+v, %v", app, err)
		}
		var listed []string
		for a, err := range org.AllApps(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, a.ID)
		}
		if len(listed) != 1 || listed[0] != app.ID {
			t.Errorf("AllApps = %v", listed)
		}
		shop := newClient(t, env.URL, app.Credentials.ClientID, app.Credentials.APIKey)
		if _, err := shop.Deposit(ctx, app.ID, payouts.DepositRequest{Amount: 500_00}); err != nil {
			t.Fatal(err)
		}
		ot, err := org.CreateOrganizationTransfer(ctx, payouts.CreateOrganizationTransferRequest{Amount: 100_00, APIAppID: app.ID})
		if err != nil || ot.Amount != 100_00 {
			t.Fatalf("CreateOrganizationTransfer = %+v, %v", ot, err)
		}
		if got, err := org.GetOrganizationTransfer(ctx, ot.ID); err != nil || got.ID != ot.ID {
			t.Errorf("GetOrganizationTransfer = %+v, %v", got, err)
		}
		if l, err := org.ListOrganizationTransfers(ctx, payouts.Page{}); err != nil || len(l.Data) != 1 {
			t.Errorf("ListOrganizationTransfers = %+v, %v", l, err)
		}
		if _, err := shop.SetACHAccount(ctx, app.ID, payouts.ACHAccountRequest{AccountNumber: "123456789",
			RoutingNumber: "011000015", AccountType: payouts.AccountChecking}); err != nil {
			t.Fatal(err)
		}
		if a, err := shop.GetACHAccount(ctx, app.ID); err != nil || a.Mask != "6789" {
			t.Errorf("GetACHAccount = %+v, %v", a, err)
		}
		if w, err := shop.Withdraw(ctx, app.ID, payouts.WithdrawRequest{Amount: 50_00}); err != nil ||
			w.Status != payouts.TransferPending || w.UserID != nil {
			t.Errorf("Withdraw = %+v, %v", w, err)
		}
		address := payouts.PostalAddress{Line1: "1 Road", City: "Austin", State: "TX", Zip: "73301", Country: "US"}
		comp := payouts.BusinessCompliance{
			CompanyInfo: payouts.CompanyInfo{Name: "Shop Inc", EIN: "987654321", IncorporationDate: "2020-01-02",
				IncorporationState: "TX", IncorporationType: "c_corporation", Website: "https://shop.test"},
			ContactInfo: payouts.ContactInfo{Email: "t@shop.test", PhoneNumber: "5125550100", PostalAddress: address},
			Directors: []payouts.Director{{FirstName: "Bo", LastName: "Li", Title: "CEO", Email: "bo@shop.test",
				Phone: "5125550101", DOB: "1979-05-06", OwnershipPercentage: "100", Address: address}},
			FlowOfFunds: payouts.FlowOfFunds{Reasons: "refunds", Usage: "shop"},
		}
		if _, err := shop.SetAppCompliance(ctx, app.ID, comp); err != nil {
			t.Fatal(err)
		}
		if c, err := shop.GetAppCompliance(ctx, app.ID); err != nil || c.CompanyInfo.EINLast4 != "4321" || c.CompanyInfo.EIN != "**-***4321" {
			t.Errorf("GetAppCompliance = %+v, %v", c, err)
		}

		user, err := shop.CreateUser(ctx, newUserRequest("Ada"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := shop.CreateTransferBatch(ctx, payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{
			{UserID: user.ID, Amount: -10_00}, {UserID: user.ID, Amount: -1_000_00}}})
		if err != nil || b.Status != payouts.BatchPending {
			t.Fatalf("CreateTransferBatch = %+v, %v", b, err)
		}
		if _, err := env.Service.ProcessBatches(ctx, 10); err != nil {
			t.Fatal(err)
		}
		if b, err = shop.GetTransferBatch(ctx, b.ID); err != nil || b.Status != payouts.BatchCompleted ||
			b.Items[0].TransferID == nil || b.Items[1].Error == nil {
			t.Errorf("GetTransferBatch = %+v, %v", b, err)
		}
		if l, err := shop.ListTransferBatches(ctx, payouts.Page{}); err != nil || len(l.Data) != 1 {
			t.Errorf("ListTransferBatches = %+v, %v", l, err)
		}
		r, err := shop.CreatePayoutRequest(ctx, payouts.CreatePayoutRequestRequest{Amount: 5_00, UserID: user.ID})
		if err != nil || r.User == nil {
			t.Fatalf("CreatePayoutRequest = %+v, %v", r, err)
		}
		if r, err = shop.ReviewPayoutRequest(ctx, r.ID, payouts.ReviewPayoutRequestRequest{Action: payouts.ReviewApprove}); err != nil ||
			r.Status != payouts.RequestApproved || r.PayoutLink == nil {
			t.Errorf("ReviewPayoutRequest = %+v, %v", r, err)
		}
		for got, err := range shop.AllPayoutRequests(ctx, payouts.PayoutRequestFilter{Status: payouts.RequestApproved}) {
			if err != nil || got.ID != r.ID {
				t.Errorf("AllPayoutRequests = %+v, %v", got, err)
			}
		}
		if s, err := shop.SendPayout(ctx, payouts.SendPayoutRequest{Amount: 3_00, UserID: user.ID}); err != nil || s.Status == payouts.LinkClaimed || s.Amount != 3_00 {
			t.Errorf("SendPayout = %+v, %v", s, err)
		}

		t.Run("errors", func(t *testing.T) {
			_, err := shop.ListApps(ctx, payouts.Page{})
			wantError(t, err, http.StatusForbidden, payouts.EForbidden)
			_, err = org.CreateOrganizationTransfer(ctx, payouts.CreateOrganizationTransferRequest{Amount: -1_000_00, APIAppID: app.ID})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			_, err = org.CreateApp(ctx, payouts.CreateAppRequest{})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "name")
			_, err = shop.CreateTransferBatch(ctx, payouts.CreateTransferBatchRequest{})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "items")
			_, err = shop.ReviewPayoutRequest(ctx, r.ID, payouts.ReviewPayoutRequestRequest{Action: payouts.ReviewReject})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInvalidTransaction)
			_, err = shop.GetPayoutRequest(ctx, "00000000-0000-4000-8000-000000000000")
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = shop.SetACHAccount(ctx, app.ID, payouts.ACHAccountRequest{})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "account_number", "routing_number", "account_type")
			_, err = shop.Withdraw(ctx, app.ID, payouts.WithdrawRequest{Amount: 1_000_000_00})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			_, err = shop.SendPayout(ctx, payouts.SendPayoutRequest{Amount: 1_000_000_00, UserID: user.ID})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			asApp, err := client.New(env.URL, client.WithCredentials(orgCreds.ClientID, orgCreds.APIKey), client.WithAppID(app.ID))
			if err != nil {
				t.Fatal(err)
			}
			if u, err := asApp.GetUser(ctx, user.ID); err != nil || u.ID != user.ID {
				t.Errorf("organization acting as the app: %+v, %v", u, err)
			}
		})
	})
}
