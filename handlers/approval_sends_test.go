package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/paths"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// eachDashboardEngine runs test with the dashboard's database and the service's on SQLite, and
// on PostgreSQL.
func eachDashboardEngine(t *testing.T, test func(t *testing.T, setup harnessSetup)) {
	t.Run("sqlite", func(t *testing.T) { test(t, harnessSetup{}) })
	t.Run("postgres", func(t *testing.T) {
		test(t, harnessSetup{dsn: pgtest.DSN(t), service: []servicetest.Option{servicetest.WithPostgres()}})
	})
}

// approvalHarness is a dashboard with an operations operator and a manager signed in, and the
// app's wallet holding cents.
func approvalHarness(t *testing.T, setup harnessSetup, cents int64) (h *harness, ops, manager *agent) {
	t.Helper()
	h = newHarnessWith(t, setup)
	ops, _ = h.signedIn(dashstore.RoleOperations)
	manager, _ = h.signedIn(dashstore.RoleManager)
	h.deposit(cents)
	return h, ops, manager
}

// linkForm is the form of a payout link of amount to payee (its payee fields), with a new key.
func linkForm(payee url.Values, amount string) url.Values {
	form := maps.Clone(payee)
	form.Set("delivery.method", "link")
	form.Set("amount", amount)
	form.Set("payee.country_code", "1")
	form.Set("idempotency_key", uuid.NewString())
	return form
}

// afterSetup moves the clock the dashboard shares with the service (harnessSetup.sharedClock) past
// the approval window, so that what the setup sent payees no longer counts in their totals.
func (h *harness) afterSetup() { h.clock.Advance(testApprovals.Window + time.Second) }

// held reports whether the dashboard held a request (sent it to an approval page) rather than
// sending it; a request it neither sent nor held fails the test.
func held(t *testing.T, res response) bool {
	t.Helper()
	loc := res.Header.Get("Location")
	switch {
	case res.StatusCode == http.StatusSeeOther && strings.HasPrefix(loc, "/approvals/"):
		return true
	case res.StatusCode == http.StatusSeeOther:
		return false
	}
	t.Fatalf("status %d (to %q), want the request sent or held", res.StatusCode, loc)
	return false
}

// toWallet moves amount into a user's wallet from the dashboard, with key.
func toWallet(a *agent, userID, amount, key string) response {
	return a.post("/users/"+userID+"/transfers", url.Values{"direction": {"to_user"}, "amount": {amount}, "idempotency_key": {key}})
}

// TestApprovalKeyFirstRefusedAsNotFound: an idempotency key first sent with a request the service
// answered 404 (a user that does not exist) is a key like any other: a request above the
// threshold sent with it next waits for approval, whatever it is.
func TestApprovalKeyFirstRefusedAsNotFound(t *testing.T) {
	t.Parallel()
	eachDashboardEngine(t, func(t *testing.T, setup harnessSetup) {
		h := newHarnessWith(t, setup)
		ops, _ := h.signedIn(dashstore.RoleOperations)
		rich := h.largePayee("Rich", "Payee", 60_000_00)
		h.deposit(200_000_00) // each case's request, sent, would spend $50,000.00
		for _, tc := range []struct {
			name string
			send func(key string) response
		}{
			{"a payout", func(key string) response {
				return ops.post("/users/"+rich.ID+"/payouts", url.Values{"platform": {"default"}, "amount": {"50000.00"}, "idempotency_key": {key}})
			}},
			{"money into a wallet", func(key string) response { return toWallet(ops, rich.ID, "50000.00", key) }},
			{"a payout link", func(key string) response {
				return ops.post("/payout-links", url.Values{"user_id": {rich.ID}, "delivery.method": {"link"},
					"amount": {"50000.00"}, "idempotency_key": {key}})
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				key := uuid.NewString()
				wantStatus(t, toWallet(ops, uuid.NewString(), "1.00", key), http.StatusNotFound)
				if !held(t, tc.send(key)) {
					t.Fatal("$50,000.00 with a key first refused as not found: sent without approval")
				}
			})
		}
	})
}

// TestApprovalKeySentAgain: sending a used idempotency key again, which the service refuses
// (409), does not take the first request out of the totals; nor does an approval of a request
// with a used key, which the service refuses too.
func TestApprovalKeySentAgain(t *testing.T) {
	t.Parallel()
	eachDashboardEngine(t, func(t *testing.T, setup harnessSetup) {
		h, ops, manager := approvalHarness(t, setup, 60_000_00)

		// sendTwice sends $999.00 with a new key, and then the key again with $998.00, which the
		// service refuses (or the policy holds, when it would pass a limit were it new); it
		// reports whether the first was held.
		sendTwice := func(t *testing.T, userID string) bool {
			key := uuid.NewString()
			if held(t, toWallet(ops, userID, "999.00", key)) {
				return true
			}
			if again := toWallet(ops, userID, "998.00", key); again.StatusCode != http.StatusUnprocessableEntity && !held(t, again) {
				t.Fatal("a used key sent again with another amount went through")
			}
			return false
		}
		t.Run("one payee", func(t *testing.T) {
			u := h.createUser("Sam", "Same")
			for i := range 6 {
				if got, want := sendTwice(t, u.ID), i == 3; got != want {
					t.Fatalf("request %d of $999.00: held %v, want %v (the limit is $3,000.00 a payee)", i+1, got, want)
				}
				if i == 3 {
					break
				}
			}
		})
		t.Run("one operator", func(t *testing.T) {
			for i := range 30 {
				u, err := h.payouts.CreateUser(t.Context(), payouts.CreateUserRequest{FirstName: "Op", LastName: fmt.Sprint("Payee", i),
					Email: fmt.Sprintf("op.payee%d@example.com", i), CountryCode: "1", PhoneNumber: fmt.Sprintf("415552%04d", i)})
				if err != nil {
					t.Fatal(err)
				}
				// Sam's $2,997.00 came from this operator too: the 23rd here passes $25,000.00.
				if got, want := sendTwice(t, u.ID), i == 22; got != want {
					t.Fatalf("request %d of $999.00: held %v, want %v (the limit is $25,000.00 an operator)", i+1, got, want)
				}
				if i == 22 {
					break
				}
			}
		})
		t.Run("an approval of a used key", func(t *testing.T) {
			other, otherOp := h.signedIn(dashstore.RoleAdmin)
			u := h.createUser("Cy", "Conflict")
			keys := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
			for _, k := range keys {
				if held(t, toWallet(other, u.ID, "999.00", k)) {
					t.Fatal("held under the limit")
				}
			}
			// A request held earlier with the key the third one used (a form left open, sent
			// after the key went with another amount).
			request, err := json.Marshal(payouts.CreateTransferRequest{UserID: u.ID, Amount: -1500_00, IdempotencyKey: keys[2]})
			if err != nil {
				t.Fatal(err)
			}
			a := dashstore.Approval{Kind: "transfer", Request: string(request), IdempotencyKey: keys[2], Amount: 1500_00,
				UserID: u.ID, PayeeKey: u.ID, PayeeName: "Cy Conflict", Method: "To the user's wallet", MakerID: otherOp.ID, MakerEmail: otherOp.Email}
			if _, err := h.store.CreateApproval(t.Context(), &a, h.clock.Now()); err != nil {
				t.Fatal(err)
			}
			wantRedirect(t, manager.post(paths.ApprovalDecision(a.ID), decide("approve", "")), paths.Approval(a.ID))
			if got, _ := h.store.Approval(t.Context(), a.ID); got.Status != dashstore.ApprovalFailed {
				t.Fatalf("the approval of a used key is %s, want failed", got.Status)
			}
			if !held(t, toWallet(other, u.ID, "999.00", uuid.NewString())) {
				t.Error("$999.00 more after $2,997.00 sent: not held")
			}
		})
	})
}

// TestApprovalPayeeIsWhoReceives: the payee limit counts what the service sent the user, by
// whatever way: payout links naming their email, their phone or another address of theirs,
// claimed by them, and payout requests from the API approved on the dashboard.
func TestApprovalPayeeIsWhoReceives(t *testing.T) {
	t.Parallel()
	eachDashboardEngine(t, func(t *testing.T, setup harnessSetup) {
		h, ops, manager := approvalHarness(t, setup, 20_000_00)
		t.Run("payout links claimed by one payee", func(t *testing.T) {
			ada := h.createUser("Ada", "Claims")
			for _, payee := range []url.Values{{"payee.email": {ada.Email}}, {"payee.phone_number": {ada.PhoneNumber.PhoneNumber}},
				{"payee.email": {"ada.claims+again@example.com"}}} {
				res := ops.post("/payout-links", linkForm(payee, "999.00"))
				if held(t, res) {
					t.Fatalf("a link of $999.00 naming %v: held", payee)
				}
				id := strings.TrimPrefix(res.Header.Get("Location"), "/payout-links/")
				if _, err := h.env.Service.ClaimPayoutLink(t.Context(), id, ada.ID); err != nil {
					t.Fatal(err)
				}
			}
			if !held(t, toWallet(ops, ada.ID, "999.00", uuid.NewString())) {
				t.Error("$999.00 to a payee who claimed $2,997.00: not held")
			}
		})
		t.Run("a payout link naming a user's phone or email, before any claim", func(t *testing.T) {
			cleo := h.createUser("Cleo", "Contact")
			for range 3 {
				if held(t, toWallet(ops, cleo.ID, "999.00", uuid.NewString())) {
					t.Fatal("held under the limit")
				}
			}
			for _, payee := range []url.Values{{"payee.email": {" CLEO.contact@example.com"}}, {"payee.phone_number": {"(" + cleo.PhoneNumber.PhoneNumber[:3] + ") " + cleo.PhoneNumber.PhoneNumber[3:]}}} {
				if !held(t, ops.post("/payout-links", linkForm(payee, "999.00"))) {
					t.Errorf("a link of $999.00 naming %v, whose owner was sent $2,997.00: not held", payee)
				}
			}
		})
		t.Run("payout requests approved on the dashboard", func(t *testing.T) {
			bo := h.createUser("Bo", "Requests")
			h.payPalDefault(bo)
			h.w9Of(bo)
			for range 3 {
				r, err := h.payouts.CreatePayoutRequest(t.Context(), payouts.CreatePayoutRequestRequest{Amount: 999_00, UserID: bo.ID})
				if err != nil {
					t.Fatal(err)
				}
				wantRedirect(t, manager.post(paths.PayoutRequestReview(r.ID), decide("approve", "")), paths.PayoutRequest(r.ID))
			}
			if !held(t, toWallet(ops, bo.ID, "999.00", uuid.NewString())) {
				t.Error("$999.00 to a payee paid $2,997.00 on approved payout requests: not held")
			}
		})
	})
}

// TestApprovalNotByWhomTheMakerVouchedFor: an operator the maker made, or made an approver, or
// gave a new password, within the approval window does not approve the maker's requests; after
// the window, they may.
func TestApprovalNotByWhomTheMakerVouchedFor(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	admin, _ := h.signedIn(dashstore.RoleAdmin)
	u := h.largePayee("Vi", "Vouched", 5000_00)
	payout := func() dashstore.Approval {
		return h.approvalOf(admin.post("/users/"+u.ID+"/payouts", url.Values{"platform": {"default"}, "amount": {"1500.00"},
			"idempotency_key": {uuid.NewString()}}))
	}
	shown := func(res response) string {
		t.Helper()
		m := shownPassword.FindStringSubmatch(res.body)
		if m == nil {
			t.Fatal("no generated password on the page")
		}
		return m[1]
	}
	for _, tc := range []struct {
		name  string
		vouch func() (email, password string)
	}{
		{"made a manager's account", func() (string, string) {
			email := uuid.NewString()[:8] + "@example.com"
			res := admin.post("/operators", url.Values{"name": {"New Manager"}, "email": {email}, "role": {"manager"}})
			wantStatus(t, res, http.StatusCreated)
			return email, shown(res)
		}},
		{"made an operator a manager", func() (string, string) {
			op, password := h.addOperator(uuid.NewString()[:8]+"@example.com", dashstore.RoleOperations)
			wantRedirect(t, admin.post("/operators/"+op.ID+"/role", url.Values{"role": {"manager"}}), "/operators/")
			return op.Email, password
		}},
		{"gave a manager a new password", func() (string, string) {
			op, _ := h.addOperator(uuid.NewString()[:8]+"@example.com", dashstore.RoleManager)
			res := admin.post("/operators/"+op.ID+"/password", nil)
			wantStatus(t, res, http.StatusOK)
			return op.Email, shown(res)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			admin.login("admin@example.com", "correct horse admin") // the window may have ended the session
			a := payout()
			email, password := tc.vouch()
			checker := h.agent()
			checker.login(email, password)
			wantStatus(t, checker.post(paths.ApprovalDecision(a.ID), decide("approve", "")), http.StatusForbidden)
			wantBody(t, checker.get(paths.Approval(a.ID)), "another approver must decide")
			h.clock.Advance(testApprovals.Window + time.Minute)
			checker.login(email, password)
			wantRedirect(t, checker.post(paths.ApprovalDecision(a.ID), decide("approve", "")), paths.Approval(a.ID))
			if got, _ := h.store.Approval(context.Background(), a.ID); got.Status != dashstore.ApprovalApproved {
				t.Errorf("after the window: %s, want approved", got.Status)
			}
		})
	}
}

// TestApprovalPayeeWindowOnPublicAPI: on the public API, which filters transfers by user but not
// by time, the payee's window is still what the service sent them: money moved to them through
// the API counts, until it is older than the window.
func TestApprovalPayeeWindowOnPublicAPI(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, harnessSetup{public: true, sharedClock: true})
	ops, _ := h.signedIn(dashstore.RoleOperations)
	h.deposit(10_000_00)
	u := h.createUser("Pub", "Lic")
	h.pay(u, 2500_00) // through the API, not the dashboard
	if !held(t, toWallet(ops, u.ID, "999.00", uuid.NewString())) {
		t.Error("$999.00 to a payee sent $2,500.00 through the API: not held")
	}
	h.afterSetup()
	ops.login("operations@example.com", "correct horse operations") // the window may have ended the session
	if held(t, toWallet(ops, u.ID, "999.00", uuid.NewString())) {
		t.Error("$999.00 once the $2,500.00 left the window: held")
	}
}

// TestApprovalClaimedLinkCountsOnce: a payout link the dashboard issued to a user and they claimed counts
// once toward the payee's total, on our service and on the public API, whose transfers do not
// name the link they hold (payout_link_id): the claim's transfer is the record of what the
// dashboard's attempt sent.
func TestApprovalClaimedLinkCountsOnce(t *testing.T) {
	t.Parallel()
	for _, public := range []bool{false, true} {
		t.Run(map[bool]string{false: "ours", true: "public"}[public], func(t *testing.T) {
			t.Parallel()
			h, ops, _ := approvalHarness(t, harnessSetup{public: public}, 20_000_00)
			ada := h.createUser("Ada", "Once")
			res := ops.post("/payout-links", linkForm(url.Values{"user_id": {ada.ID}}, "999.00"))
			if held(t, res) {
				t.Fatal("a link of $999.00: held")
			}
			id := strings.TrimPrefix(res.Header.Get("Location"), "/payout-links/")
			if _, err := h.env.Service.ClaimPayoutLink(t.Context(), id, ada.ID); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				amount string
				held   bool
			}{
				{"999.00", false}, // $1,998.00 with the claimed link
				{"999.00", false}, // $2,997.00
				{"10.00", true},   // $3,007.00: past the limit of $3,000.00
			} {
				if got := held(t, toWallet(ops, ada.ID, tc.amount, uuid.NewString())); got != tc.held {
					t.Errorf("$%s to a payee who claimed a link of $999.00: held = %v, want %v", tc.amount, got, tc.held)
				}
			}
		})
	}
}
