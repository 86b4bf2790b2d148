package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestContractPreflight checks the typed preflight calls against the service: the problems the
// real payout then fails by, the batch answered item by item, and a bad batch as an *Error.
func TestContractPreflight(t *testing.T) {
	env := servicetest.Start(t)
	c := newClient(t, env.URL, env.ClientID, env.APIKey)
	ctx := context.Background()
	ada := createUser(t, c, "Ada")
	addPayPal(t, c, ada.ID, "ada.pp@example.com")
	deposit(t, env, c, 300_000)
	fundUser(t, c, ada.ID, 200_000) // reaches 2026's $2,000 threshold: a W-9 is owed

	req := payouts.CreatePayoutRequest{UserID: ada.ID, Amount: 1_000, Platform: payouts.PlatformPayPal}
	pf, err := c.PreflightPayout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if pf.OK || !pf.Has(payouts.PTaxFormMissing) || pf.Problems[0].Message == "" {
		t.Fatalf("preflight = %+v, want the W-9 named", pf)
	}
	if _, err := c.CreatePayout(ctx, req); payouts.ErrorCode(err) != payouts.EUserInfoMissing {
		t.Fatalf("the real payout answered %v, want user-info-missing", err)
	}

	batch, err := c.PreflightBatch(ctx, payouts.PreflightBatchRequest{Items: []payouts.PreflightItem{
		{Transfer: &payouts.CreateTransferRequest{UserID: ada.ID, Amount: -50_000}},
		{Payout: &req},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if batch.OK || len(batch.Items) != 2 || !batch.Items[0].OK || !batch.Items[1].Has(payouts.PTaxFormMissing) {
		t.Fatalf("batch = %+v", batch)
	}

	// A link to Ada: its claim would pay her past the threshold without a W-9; approving a
	// payout request to her sends such a link.
	link, err := c.PreflightPayoutLink(ctx, payouts.CreatePayoutLinkRequest{UserID: ada.ID, Amount: 1_000})
	if err != nil {
		t.Fatal(err)
	}
	if link.OK || !link.Has(payouts.PTaxFormMissing) {
		t.Fatalf("link preflight = %+v, want the W-9 named", link)
	}
	r, err := c.CreatePayoutRequest(ctx, payouts.CreatePayoutRequestRequest{UserID: ada.ID, Amount: 1_000})
	if err != nil {
		t.Fatal(err)
	}
	approval, err := c.PreflightPayoutRequestApproval(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if approval.OK || !approval.Has(payouts.PTaxFormMissing) {
		t.Fatalf("approval preflight = %+v, want the W-9 named", approval)
	}

	// Money into a wallet: more than the app's wallet holds is refused for its balance.
	transfer, err := c.PreflightTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: -1_000_000_000_00})
	if err != nil {
		t.Fatal(err)
	}
	if transfer.OK || !transfer.Has(payouts.PInsufficientFunds) {
		t.Fatalf("transfer preflight = %+v, want the balance named", transfer)
	}

	_, err = c.PreflightBatch(ctx, payouts.PreflightBatchRequest{})
	var e *payouts.Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Code != payouts.EInvalidInput || e.Fields["items"] == "" {
		t.Fatalf("an empty batch answered %v", err)
	}
}
