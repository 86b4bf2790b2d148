package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// bouncedLink is a $5.00 payout link to Mira, a funded payee, sent by email to an address the
// sandbox refuses, and delivered: its delivery failed.
func (h *harness) bouncedLink() (*payouts.User, *payouts.PayoutLink) {
	h.t.Helper()
	payee := h.fundedUser("Mira", "Messages", 50_00)
	h.deposit(100_00)
	link := h.createPayoutLink(payouts.CreatePayoutLinkRequest{Amount: 5_00, UserID: payee.ID,
		Payee:    &payouts.Payee{FirstName: "Mira", LastName: "Messages", Email: "bounce@example.com"},
		Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
	if _, err := h.env.Service.DeliverDue(context.Background(), 10); err != nil {
		h.t.Fatal(err)
	}
	return payee, link
}

// A payee's page lists the messages sent to them: the channel and address, what for, and what
// became of each, a failure with its reason. Operations may send a payout link again, which the
// audit log records; support, which may not issue links, sees no button and is refused the route.
// The service's worker is stopped: the test delivers, so the resent message is still waiting when
// the test looks.
func TestUserMessages(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{service: []servicetest.Option{
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })}})
	ops, _ := h.signedIn(dashstore.RoleOperations)
	support, _ := h.signedIn(dashstore.RoleSupport)
	payee, link := h.bouncedLink()

	page := ops.get("/users/" + payee.ID)
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `id="messages"`, "email to bounce@example.com", "failed: ", "does not accept messages",
		`action="/payout-links/`+link.ID+`/resend"`, "Send the link again")

	res := support.get("/users/" + payee.ID)
	wantStatus(t, res, http.StatusOK)
	wantBody(t, res, `id="messages"`, "failed: ")
	if strings.Contains(res.body, "/resend") {
		t.Fatal("support sees the resend button")
	}
	wantStatus(t, support.post("/payout-links/"+link.ID+"/resend", nil), http.StatusForbidden)
	if got := len(h.auditActions("payout_link", link.ID)); got != 0 {
		t.Fatalf("%d audit entries after a refused resend", got)
	}
	if got, _ := h.env.Service.UserMessages(context.Background(), h.env.AppID, payee.ID, 10); len(got) != 1 {
		t.Fatalf("%d messages after a refused resend, want 1", len(got))
	}

	wantRedirect(t, ops.post("/payout-links/"+link.ID+"/resend", nil), "/users/"+payee.ID)
	entries := h.auditActions("payout_link", link.ID)
	if len(entries) != 1 || entries[0].Action != "payout_link.resend" || !strings.Contains(entries[0].Detail, "$5.00") {
		t.Fatalf("audit: %+v", entries)
	}
	page = ops.get("/users/" + payee.ID)
	wantBody(t, page, "waiting to be sent")
	if got, err := h.payouts.GetPayoutLink(context.Background(), link.ID); err != nil || got.Status != payouts.LinkDeliveryPending {
		t.Fatalf("the link is %v (%v) after the resend, want delivery_pending", got.Status, err)
	}
}
