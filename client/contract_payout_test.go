package client_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// startSettledByHand starts the service without its background worker, so that payouts settle
// only when the test advances the clock and calls settle: statuses are deterministic.
func startSettledByHand(t *testing.T, opts ...servicetest.Option) (*servicetest.Env, *client.Client, func()) {
	t.Helper()
	env := servicetest.Start(t, append(opts, servicetest.WithConfig(func(cfg *payoutd.Config) { cfg.WorkerInterval = -1 }))...)
	settle := func() {
		t.Helper()
		env.Clock.Advance(time.Hour)
		if _, err := env.Service.SettleDue(context.Background(), 100); err != nil {
			t.Fatalf("SettleDue: %v", err)
		}
	}
	return env, newClient(t, env.URL, env.ClientID, env.APIKey), settle
}

func addPayPal(t *testing.T, c *client.Client, userID, email string) *payouts.PayoutMethod {
	t.Helper()
	m, err := c.AddPayoutMethod(context.Background(), userID, payouts.AddPayoutMethodRequest{
		Platform: payouts.PlatformPayPal, Email: email, IsDefault: true})
	if err != nil {
		t.Fatalf("AddPayoutMethod: %v", err)
	}
	return m
}

func TestContractPayouts(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c, settle := startSettledByHand(t, servicetest.WithDSN(dsn))
		ctx := context.Background()
		ada := createUser(t, c, "Ada")
		method := addPayPal(t, c, ada.ID, "ada.pp@example.com")
		deposit(t, env, c, 10_000)
		fundUser(t, c, ada.ID, 3_000)

		p, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 2_000, Platform: payouts.PlatformDefault})
		if err != nil {
			t.Fatal(err)
		}
		if p.Type != payouts.TransferPayout || p.Amount != 2_000 || p.Status != payouts.TransferPending ||
			p.UserID == nil || *p.UserID != ada.ID || p.ExternalData.AccountID != method.ID || p.ExternalData.Platform != payouts.PlatformPayPal {
			t.Errorf("payout = %+v", p)
		}
		if u, err := c.GetUser(ctx, ada.ID); err != nil || u.Wallet.Amount != 3_000 || u.Wallet.WithdrawableAmount != 1_000 {
			t.Errorf("Ada's wallet while the payout is on the rail = %+v, %v", u, err)
		}
		settle()
		got, err := c.GetTransfer(ctx, p.ID)
		if err != nil || got.Status != payouts.TransferCompleted {
			t.Fatalf("payout after settlement = %+v, %v", got, err)
		}
		if h := got.StatusHistory; len(h) < 2 || h[len(h)-1].Status != payouts.TransferCompleted || h[len(h)-1].At.IsZero() {
			t.Errorf("status history = %+v, want it to end completed", h)
		}
		if u, err := c.GetUser(ctx, ada.ID); err != nil || u.Wallet.Amount != 1_000 || u.Wallet.WithdrawableAmount != 1_000 {
			t.Errorf("Ada's wallet after settlement = %+v, %v", u, err)
		}
		if l, err := c.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{UserID: ada.ID, Type: payouts.TransferPayout}); err != nil ||
			len(l.Data) != 1 || l.Data[0].ID != p.ID {
			t.Errorf("Ada's payouts = %+v, %v", l, err)
		}

		t.Run("funded by the app", func(t *testing.T) {
			grace := createUser(t, c, "Grace")
			addPayPal(t, c, grace.ID, "grace.pp@example.com")
			p, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: grace.ID, Amount: 1_500,
				Platform: payouts.PlatformPayPal, Fund: true})
			if err != nil || p.Status != payouts.TransferPending {
				t.Fatalf("funded payout = %+v, %v", p, err)
			}
			settle()
			if u, err := c.GetUser(ctx, grace.ID); err != nil || u.Wallet.Amount != 0 {
				t.Errorf("Grace's wallet after a funded payout = %+v, %v", u, err)
			}
		})

		t.Run("same key, same payout", func(t *testing.T) {
			fundUser(t, c, ada.ID, 500)
			req := payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 500, Platform: payouts.PlatformPayPal,
				IdempotencyKey: "2c3d4e5f-6071-4829-93a4-b5c6d7e8f901"}
			first, err := c.CreatePayout(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := c.CreatePayout(ctx, req)
			if err != nil || again.ID != first.ID {
				t.Errorf("repeat = %+v, %v; want payout %s", again, err, first.ID)
			}
			req.Amount = 400
			_, err = c.CreatePayout(ctx, req)
			wantError(t, err, http.StatusConflict, payouts.EIdempotencyReused)
		})

		t.Run("review", func(t *testing.T) {
			fundUser(t, c, ada.ID, 2*1_313)
			flagged := func() *payouts.Transfer {
				t.Helper()
				p, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 1_313, Platform: payouts.PlatformPayPal})
				if err != nil || p.Status != payouts.TransferFlagged {
					t.Fatalf("payout of the flag amount = %+v, %v", p, err)
				}
				return p
			}
			released, err := c.ReviewTransfer(ctx, flagged().ID, payouts.ReviewTransferRequest{Action: payouts.ReviewRelease})
			if err != nil || released.Status != payouts.TransferPending {
				t.Errorf("released = %+v, %v", released, err)
			}
			rejected, err := c.ReviewTransfer(ctx, flagged().ID, payouts.ReviewTransferRequest{Action: payouts.ReviewReject, Reason: "name mismatch"})
			if err != nil || rejected.Status != payouts.TransferFailed || rejected.FailureReason != "name mismatch" {
				t.Errorf("rejected = %+v, %v", rejected, err)
			}
			_, err = c.ReviewTransfer(ctx, rejected.ID, payouts.ReviewTransferRequest{Action: payouts.ReviewRelease})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInvalidTransaction)
			_, err = c.ReviewTransfer(ctx, released.ID, payouts.ReviewTransferRequest{Action: "maybe"})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "action")
			_, err = c.ReviewTransfer(ctx, "6f1e2d3c-4b5a-4968-8776-655443322110", payouts.ReviewTransferRequest{Action: payouts.ReviewRelease})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		})

		t.Run("errors", func(t *testing.T) {
			_, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 1_000_000, Platform: payouts.PlatformPayPal})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			_, err = c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 0, Platform: payouts.PlatformACH})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "amount", "account_id")
			_, err = c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 100, Platform: "pigeon"})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "platform")
			_, err = c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: "6f1e2d3c-4b5a-4968-8776-655443322110", Amount: 100,
				Platform: payouts.PlatformPayPal})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		})
	})
}

func TestContractPayoutLinks(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c := startService(t, servicetest.WithDSN(dsn))
		ctx := context.Background()
		deposit(t, env, c, 10_000)

		link, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 3_000, Memo: "March invoice",
			Payee:    &payouts.Payee{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"},
			Delivery: &payouts.Delivery{Method: payouts.DeliveryLink}})
		if err != nil {
			t.Fatal(err)
		}
		if !payouts.ValidID(link.ID) || link.Amount != 3_000 || link.Status != payouts.LinkDelivered || link.Memo != "March invoice" ||
			!strings.HasPrefix(link.Link, env.Origin) || link.FlowID == nil || link.TransferID == nil || link.ClaimedUserID != nil {
			t.Errorf("link = %+v", link)
		}
		if app, err := c.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 10_000 || app.Wallet.WithdrawableAmount != 7_000 {
			t.Errorf("app wallet with an open link = %+v, %v", app, err)
		}
		if f, err := c.GetFlow(ctx, *link.FlowID); err != nil || f.PayoutLinkID == nil || *f.PayoutLinkID != link.ID ||
			len(f.Steps) == 0 || f.Steps[0] != payouts.StepPayout {
			t.Errorf("the link's flow = %+v, %v", f, err)
		}

		got, err := c.GetPayoutLink(ctx, link.ID)
		if err != nil || got.ID != link.ID || got.Payee != link.Payee {
			t.Errorf("GetPayoutLink = %+v, %v", got, err)
		}
		second, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 1_000,
			Payee: &payouts.Payee{FirstName: "Alan", Email: "alan@example.com"}, Delivery: &payouts.Delivery{Method: payouts.DeliveryLink}})
		if err != nil {
			t.Fatal(err)
		}

		t.Run("list and walk", func(t *testing.T) {
			page, err := c.ListPayoutLinks(ctx, payouts.Page{Limit: 1}, payouts.PayoutLinkFilter{})
			if err != nil || !page.HasMore || len(page.Data) != 1 || page.Data[0].ID != second.ID {
				t.Errorf("first page = %+v, %v", page, err)
			}
			found, err := c.ListPayoutLinks(ctx, payouts.Page{}, payouts.PayoutLinkFilter{Search: "grace"})
			if err != nil || len(found.Data) != 1 || found.Data[0].ID != link.ID {
				t.Errorf("search = %+v, %v", found, err)
			}
			var walked []string
			for l, err := range c.AllPayoutLinks(ctx, payouts.PayoutLinkFilter{Status: payouts.LinkDelivered}) {
				if err != nil {
					t.Fatal(err)
				}
				walked = append(walked, l.ID)
			}
			if strings.Join(walked, ",") != second.ID+","+link.ID {
				t.Errorf("AllPayoutLinks = %v", walked)
			}
		})

		t.Run("same key, same link", func(t *testing.T) {
			req := payouts.CreatePayoutLinkRequest{Amount: 200, IdempotencyKey: "3d4e5f60-7182-4a3b-84c5-d6e7f8091a2b",
				Payee: &payouts.Payee{FirstName: "Kay", Email: "kay@example.com"}, Delivery: &payouts.Delivery{Method: payouts.DeliveryLink}}
			first, err := c.CreatePayoutLink(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := c.CreatePayoutLink(ctx, req)
			if err != nil || again.ID != first.ID {
				t.Errorf("repeat = %+v, %v; want link %s", again, err, first.ID)
			}
			if _, err := c.CancelPayoutLink(ctx, first.ID); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("cancel", func(t *testing.T) {
			canceled, err := c.CancelPayoutLink(ctx, link.ID)
			if err != nil || canceled.Status != payouts.LinkCanceled {
				t.Fatalf("CancelPayoutLink = %+v, %v", canceled, err)
			}
			if app, err := c.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 10_000 || app.Wallet.WithdrawableAmount != 9_000 {
				t.Errorf("app wallet after cancelling = %+v, %v; only the second link still reserves", app, err)
			}
			_, err = c.CancelPayoutLink(ctx, link.ID)
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInvalidTransaction)
		})

		t.Run("errors", func(t *testing.T) {
			_, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 0})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "amount")
			_, err = c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 1_000_000,
				Payee: &payouts.Payee{FirstName: "Rich", Email: "rich@example.com"}, Delivery: &payouts.Delivery{Method: payouts.DeliveryLink}})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			unknown := "6f1e2d3c-4b5a-4968-8776-655443322110"
			_, err = c.GetPayoutLink(ctx, unknown)
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.CancelPayoutLink(ctx, unknown)
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.ListPayoutLinks(ctx, payouts.Page{}, payouts.PayoutLinkFilter{Status: "lost"})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "status")
		})
	})
}

func TestContractFlows(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c := startService(t, servicetest.WithDSN(dsn))
		ctx := context.Background()
		ada := createUser(t, c, "Ada")

		f, err := c.CreateFlow(ctx, payouts.CreateFlowRequest{UserID: ada.ID,
			Steps: []payouts.Step{{Name: payouts.StepCompliance}, {Name: payouts.StepRedirect, RedirectURL: "https://example.com/done"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !payouts.ValidID(f.ID) || f.UserID == nil || *f.UserID != ada.ID || len(f.Steps) != 2 || len(f.CompletedSteps) != 0 ||
			!strings.HasPrefix(f.Link, env.Origin) || f.PayoutLinkID != nil {
			t.Errorf("flow = %+v", f)
		}
		got, err := c.GetFlow(ctx, f.ID)
		if err != nil || got.ID != f.ID || got.Link != f.Link || len(got.Steps) != 2 {
			t.Errorf("GetFlow = %+v, %v; want the flow as created, with its link %s", got, err, f.Link)
		}
		anonymous, err := c.CreateFlow(ctx, payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: payouts.StepManagePayouts}}})
		if err != nil || anonymous.UserID != nil {
			t.Fatalf("flow without a user = %+v, %v", anonymous, err)
		}

		page, err := c.ListFlows(ctx, payouts.Page{Limit: 1}, payouts.FlowFilter{})
		if err != nil || !page.HasMore || len(page.Data) != 1 || page.Data[0].ID != anonymous.ID {
			t.Errorf("first page = %+v, %v", page, err)
		}
		var walked []string
		for fl, err := range c.AllFlows(ctx, payouts.FlowFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			if fl.Link == "" {
				t.Errorf("listed flow %s has no link", fl.ID)
			}
			walked = append(walked, fl.ID)
		}
		if strings.Join(walked, ",") != anonymous.ID+","+f.ID {
			t.Errorf("AllFlows = %v", walked)
		}

		t.Run("errors", func(t *testing.T) {
			_, err := c.CreateFlow(ctx, payouts.CreateFlowRequest{})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "steps")
			_, err = c.CreateFlow(ctx, payouts.CreateFlowRequest{Steps: []payouts.Step{{Name: "dance"}}})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput)
			_, err = c.CreateFlow(ctx, payouts.CreateFlowRequest{UserID: "6f1e2d3c-4b5a-4968-8776-655443322110",
				Steps: []payouts.Step{{Name: payouts.StepPayout}}})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.GetFlow(ctx, "6f1e2d3c-4b5a-4968-8776-655443322110")
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		})
	})
}
