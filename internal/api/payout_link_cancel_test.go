package api_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// TestCancelPayoutLink cancels links in every open status, on both databases: each answers
// canceled, the app's wallet is back to the cent, the reservation's transfer failed, and a
// second cancel is refused.
func TestCancelPayoutLink(t *testing.T) {
	t.Parallel()
	const amount = 40_00
	tests := []struct {
		name string
		body map[string]any
		sent bool // the worker handles the link before the cancel
		want payouts.PayoutLinkStatus
	}{
		{"delivered as a link", map[string]any{"amount": amount}, false, payouts.LinkDelivered},
		{"delivered by email", emailDelivery(amount, "grace@example.com"), true, payouts.LinkDelivered},
		{"delivered by sms", smsDelivery(amount, "4155550123"), true, payouts.LinkDelivered},
		{"waiting for delivery", emailDelivery(amount, "grace@example.com"), false, payouts.LinkDeliveryPending},
		{"delivery failed", emailDelivery(amount, "bounce@example.com"), true, payouts.LinkDeliveryFailed},
	}
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
					transfer(t, env, creds, user.ID, -10_00)
					before := balancesOf(t, env, creds, user.ID)

					l := createLink(t, env, creds, tt.body)
					if tt.sent {
						if n := deliver(t, env); n != 1 {
							t.Fatalf("delivered %d links, want 1", n)
						}
					}
					if got := getLink(t, env, l.ID); got.Status != tt.want {
						t.Fatalf("status %s before the cancel, want %s", got.Status, tt.want)
					}
					reserved := balances{before.app, before.appFree - amount, before.user, before.userFree}
					if got := balancesOf(t, env, creds, user.ID); got != reserved {
						t.Fatalf("with the link open: %v, want %v", got, reserved)
					}
					env.CheckLedger(t)
					inbox := len(env.Inbox.Messages())

					path := "/v2/payout-links/" + l.ID
					var canceled payouts.PayoutLink
					call{method: "DELETE", path: path, status: http.StatusOK}.do(t, env).Decode(t, &canceled)
					if canceled.ID != l.ID || canceled.Status != payouts.LinkCanceled || canceled.Amount != amount {
						t.Fatalf("cancel answered %+v", canceled)
					}
					check := func(step string) {
						t.Helper()
						if got := getLink(t, env, l.ID); got.Status != payouts.LinkCanceled || got.ClaimedUserID != nil {
							t.Fatalf("%s: link %s, claimed by %v", step, got.Status, got.ClaimedUserID)
						}
						if got := balancesOf(t, env, creds, user.ID); got != before {
							t.Fatalf("%s: %v, want %v", step, got, before)
						}
						if tr := getTransfer(t, env, *l.TransferID); tr.Status != payouts.TransferFailed ||
							!slices.Equal(lines(tr), []string{"balance 4000 voided"}) {
							t.Fatalf("%s: the reservation %s %v, want failed with its line voided", step, tr.Status, lines(tr))
						}
						env.CheckLedger(t)
					}
					check("after the cancel")

					// Nothing more happens to a canceled link: no delivery, no second cancel.
					if n := deliver(t, env); n != 0 {
						t.Errorf("delivered %d canceled links", n)
					}
					if n := len(env.Inbox.Messages()); n != inbox {
						t.Errorf("%d messages sent after the cancel", n-inbox)
					}
					call{name: "cancel again", method: "DELETE", path: path,
						status: http.StatusUnprocessableEntity, code: payouts.EInvalidTransaction}.do(t, env)
					check("after a second cancel")
				})
			}
		})
	}
}

// TestCancelClaimedPayoutLink claims a link for a user, then tries to cancel it: 422, and
// nothing changes, on both databases.
func TestCancelClaimedPayoutLink(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
			l := createLink(t, env, creds, emailDelivery(40_00, "grace@example.com"))
			deliver(t, env)
			if _, err := env.Service.ClaimPayoutLink(context.Background(), l.ID, user.ID); err != nil {
				t.Fatalf("claim: %v", err)
			}
			claimed := getLink(t, env, l.ID)
			if claimed.Status != payouts.LinkClaimed || claimed.ClaimedUserID == nil || *claimed.ClaimedUserID != user.ID {
				t.Fatalf("after the claim: %+v", claimed)
			}
			want := balances{960_00, 960_00, 40_00, 40_00}
			if got := balancesOf(t, env, creds, user.ID); got != want {
				t.Fatalf("after the claim: %v, want %v", got, want)
			}
			env.CheckLedger(t)

			for range 2 {
				call{method: "DELETE", path: "/v2/payout-links/" + l.ID,
					status: http.StatusUnprocessableEntity, code: payouts.EInvalidTransaction}.do(t, env)
				if got := getLink(t, env, l.ID); got.Status != payouts.LinkClaimed || got.ClaimedUserID == nil || *got.ClaimedUserID != user.ID {
					t.Fatalf("a refused cancel changed the link: %+v", got)
				}
				if got := balancesOf(t, env, creds, user.ID); got != want {
					t.Fatalf("a refused cancel moved money: %v, want %v", got, want)
				}
				if tr := getTransfer(t, env, *l.TransferID); tr.Status != payouts.TransferCompleted {
					t.Fatalf("a refused cancel changed the claimed link's transfer: %s", tr.Status)
				}
				env.CheckLedger(t)
			}
		})
	}
}

// TestCancelPayoutLinkInput sends cancels for ids that are not the app's links: 404, and the
// other app's link stays open with its money reserved.
func TestCancelPayoutLinkInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	theirs := createLink(t, env, w.other, map[string]any{"amount": 8_00})
	theirApp := getApp(t, env, w.other).Wallet
	runCalls(t, env, notFoundCalls("DELETE", func(id string) string { return "/v2/payout-links/" + id }, nil, theirs.ID))

	var got payouts.PayoutLink
	env.DoAs(t, w.other, "GET", "/v2/payout-links/"+theirs.ID, nil).Decode(t, &got)
	if got.Status != payouts.LinkDelivered {
		t.Errorf("another app's link was canceled through this app: %s", got.Status)
	}
	if a := getApp(t, env, w.other).Wallet; a != theirApp {
		t.Errorf("another app's wallet changed: %+v, want %+v", a, theirApp)
	}
}

// TestConcurrentCancelAndClaim sends ten cancels of one link at once while its payee claims it,
// on both databases: exactly one of them wins. Either the payee has the money and every cancel
// was refused, or one cancel returned the money to the app and the claim was refused.
func TestConcurrentCancelAndClaim(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
			l := createLink(t, env, creds, map[string]any{"amount": 40_00})

			reqs := make([]*http.Request, 10)
			for i := range reqs {
				reqs[i] = env.NewRequest(t, "DELETE", "/v2/payout-links/"+l.ID, nil)
			}
			claimed := make(chan error, 1)
			go func() {
				_, err := env.Service.ClaimPayoutLink(context.Background(), l.ID, user.ID)
				claimed <- err
			}()
			canceled := 0
			for _, a := range concurrently(env, reqs) {
				switch {
				case a.err != nil:
					t.Fatalf("cancel: %v", a.err)
				case a.status == http.StatusOK:
					canceled++
				case a.status == http.StatusUnprocessableEntity && strings.Contains(string(a.body), payouts.EInvalidTransaction):
				default:
					t.Errorf("cancel answered %d %s, want 200 or 422 %s", a.status, a.body, payouts.EInvalidTransaction)
				}
			}
			claimErr := <-claimed

			got := getLink(t, env, l.ID)
			wallets := balancesOf(t, env, creds, user.ID)
			switch {
			case claimErr == nil:
				if canceled != 0 || got.Status != payouts.LinkClaimed || wallets != (balances{960_00, 960_00, 40_00, 40_00}) {
					t.Errorf("claimed, yet %d cancels succeeded; link %s; %v", canceled, got.Status, wallets)
				}
			case canceled == 1:
				if got.Status != payouts.LinkCanceled || wallets != (balances{1_000_00, 1_000_00, 0, 0}) {
					t.Errorf("canceled, yet the link is %s; %v", got.Status, wallets)
				}
				if e := (*payouts.Error)(nil); !errors.As(claimErr, &e) || e.Code != payouts.EInvalidTransaction {
					t.Errorf("the claim of a canceled link failed with %v, want %s", claimErr, payouts.EInvalidTransaction)
				}
			default:
				t.Errorf("claim: %v, and %d cancels succeeded; want exactly one winner", claimErr, canceled)
			}
			env.CheckLedger(t)
		})
	}
}
