package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/testutil/dotsdouble"
	"github.com/disburse/disburse/payouts"
)

// TestContractMessages lists the messages sent to a payee and sends a link again: a second
// message of the same link; a canceled link is not sent again; the public API has neither route.
func TestContractMessages(t *testing.T) {
	env, c := startService(t)
	ctx := context.Background()
	if _, err := env.Service.Deposit(ctx, env.AppID, env.AppID, payouts.DepositRequest{Amount: 100_00}); err != nil {
		t.Fatal(err)
	}
	u, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		CountryCode: "1", PhoneNumber: "4155550101"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 10_00, UserID: u.ID,
		Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.DeliverDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResendPayoutLink(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.UserMessages(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Status != payouts.MessageQueued || msgs[1].Status != payouts.MessageSent ||
		msgs[0].PayoutLinkID != l.ID || msgs[1].Purpose != payouts.PurposePayoutLink || msgs[1].To != "ada@example.com" {
		t.Fatalf("messages: %+v", msgs)
	}
	if _, err := c.CancelPayoutLink(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.ResendPayoutLink(ctx, l.ID)
	wantError(t, err, http.StatusUnprocessableEntity, payouts.EInvalidTransaction)
	_, err = c.UserMessages(ctx, "01a22595-de61-7aa9-ad08-fd44550a8095")
	wantError(t, err, http.StatusNotFound, payouts.ENotFound)

	t.Run("public API", func(t *testing.T) {
		publicURL, _ := dotsdouble.Start(t, env.URL)
		_, err := newClient(t, publicURL, env.ClientID, env.APIKey).UserMessages(ctx, u.ID)
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}

// TestContractCorrectPayoutLinkContact corrects the payee of a link whose email bounced: it goes
// to the corrected address; a bad address is the field's error; the public API has no such route.
func TestContractCorrectPayoutLinkContact(t *testing.T) {
	env, c := startService(t)
	ctx := context.Background()
	if _, err := env.Service.Deposit(ctx, env.AppID, env.AppID, payouts.DepositRequest{Amount: 100_00}); err != nil {
		t.Fatal(err)
	}
	l, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 10_00,
		Payee: &payouts.Payee{FirstName: "Ada", Email: "ada@bounce.example.com"}, Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.DeliverDue(ctx, 10); err != nil {
		t.Fatal(err)
	}
	_, err = c.CorrectPayoutLinkContact(ctx, l.ID, payouts.CorrectPayoutLinkContactRequest{Payee: payouts.Payee{Email: "ada@"}})
	wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "payee.email")
	got, err := c.CorrectPayoutLinkContact(ctx, l.ID, payouts.CorrectPayoutLinkContactRequest{Payee: payouts.Payee{FirstName: "Ada", Email: "ada@example.com"}})
	if err != nil || got.Status != payouts.LinkDeliveryPending || got.Payee.Email != "ada@example.com" {
		t.Fatalf("CorrectPayoutLinkContact = %+v, %v", got, err)
	}

	t.Run("public API", func(t *testing.T) {
		publicURL, _ := dotsdouble.Start(t, env.URL)
		_, err := newClient(t, publicURL, env.ClientID, env.APIKey).CorrectPayoutLinkContact(ctx, l.ID,
			payouts.CorrectPayoutLinkContactRequest{Payee: payouts.Payee{Email: "ada@example.com"}})
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}
