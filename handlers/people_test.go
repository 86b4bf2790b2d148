package handlers_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// Every page that names a user names them as a person, linked to their page: name and email,
// not a bare id.
func TestPagesNameTheirPeople(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	manager, _ := h.signedIn(dashstore.RoleManager)
	maria := h.fundedUser("Maria", "López", 50_00)
	transfers, err := h.payouts.ListTransfers(ctx, payouts.Page{Limit: 1}, payouts.TransferFilter{UserID: maria.ID})
	if err != nil || len(transfers.Data) != 1 {
		t.Fatalf("maria's transfer: %v %v", transfers, err)
	}
	lines, err := h.payouts.ListTransactions(ctx, payouts.Page{Limit: 1}, payouts.TransactionFilter{UserID: maria.ID})
	if err != nil || len(lines.Data) != 1 {
		t.Fatalf("maria's transaction: %v %v", lines, err)
	}
	flow := h.createFlow(payouts.CreateFlowRequest{UserID: maria.ID, Steps: []payouts.Step{{Name: payouts.StepCompliance}}})
	h.deposit(20_00)
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 20_00, UserID: maria.ID})

	person := []string{`href="/users/` + maria.ID + `"`, "Maria López", "(maria.lópez@example.com)"}
	for _, tc := range []struct{ name, path string }{
		{"transfer", "/transfers/" + transfers.Data[0].ID},
		{"transaction", "/transactions/" + strconv.FormatInt(lines.Data[0].ID, 10)},
		{"flow", "/flows/" + flow.ID},
		{"flows list", "/flows"},
		{"payout link", "/payout-links/" + link.ID},
		{"payout links list", "/payout-links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := manager.get(tc.path)
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, person...)
		})
	}
	t.Run("payout link says who it was issued to", func(t *testing.T) {
		wantBody(t, manager.get("/payout-links/"+link.ID), "Issued to")
	})
}

// A user the service no longer knows shows as their short id, never as an error page.
func TestPagesFallBackToShortIDOfDeletedUser(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	manager, _ := h.signedIn(dashstore.RoleManager)
	gone := h.createUser("Gone", "Away")
	flow := h.createFlow(payouts.CreateFlowRequest{UserID: gone.ID, Steps: []payouts.Step{{Name: payouts.StepCompliance}}})
	if _, err := h.payouts.DeleteUser(context.Background(), gone.ID); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/flows/" + flow.ID, "/flows"} {
		t.Run(path, func(t *testing.T) {
			res := manager.get(path)
			wantStatus(t, res, http.StatusOK)
			wantBody(t, res, `title="`+gone.ID+`"`, ">"+payouts.ShortID(gone.ID)+"</a>")
		})
	}
}
