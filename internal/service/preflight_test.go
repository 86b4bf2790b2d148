package service_test

import (
	"fmt"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestPreflightNamesWhatThePayoutRefuses runs, for each rule a payout enforces, the preflight
// and then the real request on the same state: the preflight names the rule (and writes
// nothing), and the real request fails by it. One decider means the two cannot disagree.
func TestPreflightNamesWhatThePayoutRefuses(t *testing.T) {
	const deposit = 100_000
	tests := []struct {
		name string
		// setup prepares the state and returns the request; e is fresh, its user has a PayPal
		// method and an empty wallet, the app wallet holds deposit.
		setup     func(t *testing.T, e *env) payouts.CreatePayoutRequest
		code      string // the preflight's problem; "" for none
		field     string
		errorCode string // what the real request answers; "" for a payout made
		held      bool
	}{
		{name: "a payout that passes", code: "", setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
			return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 5_000, Platform: "paypal", Fund: true}
		}},
		{name: "held for review, not refused", held: true, setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
			return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 1313, Platform: "paypal", Fund: true}
		}},
		{name: "an amount of zero", code: payouts.PInvalidInput, field: "amount", errorCode: payouts.EInvalidInput,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 0, Platform: "paypal", Fund: true}
			}},
		{name: "an idempotency key that is not a UUID", code: payouts.PInvalidInput, field: "idempotency_key", errorCode: payouts.EInvalidInput,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "paypal", Fund: true, IdempotencyKey: "k1"}
			}},
		{name: "no such user", code: payouts.PUserNotFound, field: "user_id", errorCode: payouts.ENotFound,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: "0190a0b0-0000-7000-8000-000000000001", Amount: 100, Platform: "paypal", Fund: true}
			}},
		{name: "another app's user", code: payouts.PUserNotFound, field: "user_id", errorCode: payouts.ENotFound,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				other, err := e.svc.CreateApp(e.ctx, "Other")
				if err != nil {
					t.Fatal(err)
				}
				u, err := e.svc.CreateUser(e.ctx, other.AppID, payouts.CreateUserRequest{FirstName: "Eve", LastName: "Other",
					Email: "eve@example.com", CountryCode: "1", PhoneNumber: "4155550199"})
				if err != nil {
					t.Fatal(err)
				}
				return payouts.CreatePayoutRequest{UserID: u.ID, Amount: 100, Platform: "paypal", Fund: true}
			}},
		{name: "no method of the platform", code: payouts.PPayoutMethodMissing, errorCode: payouts.EUserInfoMissing,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "venmo", Fund: true}
			}},
		{name: "an account of another platform", code: payouts.PInvalidInput, field: "account_id", errorCode: payouts.EInvalidInput,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				methods, err := e.svc.ListPayoutMethods(e.ctx, e.app, e.user.ID)
				if err != nil {
					t.Fatal(err)
				}
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "ach", AccountID: methods[0].ID, Fund: true}
			}},
		{name: "a W-9 owed past the 1099 threshold", code: payouts.PTaxFormMissing, errorCode: payouts.EUserInfoMissing,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				// $2,000 to the user's wallet reaches 2026's threshold.
				if _, err := e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: 200_000}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -200_000}); err != nil {
					t.Fatal(err)
				}
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "paypal"}
			}},
		{name: "the app's wallet short of a funded payout", code: payouts.PInsufficientFunds, errorCode: payouts.EInsufficientFunds,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: deposit, Platform: "paypal", Fund: true}
			}},
		{name: "the user's wallet short", code: payouts.PInsufficientFunds, errorCode: payouts.EInsufficientFunds,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "paypal"}
			}},
		{name: "a fee the user pays above the amount", code: payouts.PInvalidInput, field: "amount", errorCode: payouts.EInvalidInput,
			setup: func(t *testing.T, e *env) payouts.CreatePayoutRequest {
				return payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 25, Platform: "paypal", Fund: true, PayoutFeeParty: payouts.FeePartyUser}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, dsn string) {
				e := newEnvOn(t, dsn, nil, deposit)
				e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
				req := tt.setup(t, e)
				before := e.snapshot(t)
				pf, err := e.svc.PreflightPayout(e.ctx, e.app, req)
				if err != nil {
					t.Fatal(err)
				}
				if after := e.snapshot(t); after != before {
					t.Fatalf("the preflight wrote: %s, then %s", before, after)
				}
				switch {
				case tt.code == "" && !pf.OK:
					t.Fatalf("preflight refused: %+v", pf.Problems)
				case tt.code != "" && (pf.OK || len(pf.Problems) != 1 || pf.Problems[0].Code != tt.code || pf.Problems[0].Field != tt.field):
					t.Fatalf("preflight = %+v, want one problem %s on %q", pf, tt.code, tt.field)
				case tt.code != "" && pf.Problems[0].Message == "":
					t.Fatal("a problem without a message")
				case tt.held != (len(pf.Notices) == 1 && pf.Notices[0].Code == payouts.NHeldForReview):
					t.Fatalf("notices = %+v, want held %v", pf.Notices, tt.held)
				}
				made, err := e.svc.CreatePayout(e.ctx, e.app, req)
				switch {
				case tt.errorCode == "" && err != nil:
					t.Fatalf("the real payout failed: %v", err)
				case tt.errorCode != "":
					wantCode(t, err, tt.errorCode)
				case tt.held && made.Status != payouts.TransferFlagged:
					t.Fatalf("the real payout is %s, not held", made.Status)
				}
			})
		})
	}
}

// snapshot is what a write would change: the app's accounts and postings, and the user's
// compliance flags.
func (e *env) snapshot(t *testing.T) string {
	t.Helper()
	accounts, postings, err := e.st.LedgerSnapshot(e.ctx, e.app)
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.svc.GetUser(e.ctx, e.app, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("accounts %+v, %d postings, compliance %+v", accounts, len(postings), u.Compliance)
}

// TestPreflightBatchCountsEarlierItems checks a batch as the real requests would meet it one after
// another: a payout that takes the user past the 1099 threshold makes the next one owe a W-9, and
// what earlier items spend is gone for later ones.
func TestPreflightBatchCountsEarlierItems(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 500_000)
		e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
		bob := e.newUser(t, "bob@example.com", "4155550102")
		e.addMethod(t, bob.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "bob@example.com"})
		payout := func(userID string, amount int64) payouts.PreflightItem {
			return payouts.PreflightItem{Payout: &payouts.CreatePayoutRequest{UserID: userID, Amount: amount, Platform: "paypal", Fund: true}}
		}
		items := []payouts.PreflightItem{
			{Transfer: &payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -150_000}}, // $1,500 to the wallet
			payout(e.user.ID, 60_000), // reaches $2,100: passes, and the W-9 is owed from now on
			payout(e.user.ID, 10_000), // owes the W-9
			payout(bob.ID, 300_000),   // the app's wallet now holds $2,900 less the fees: short
			payout(bob.ID, 100_000),   // still fits
			{Transfer: &payouts.CreateTransferRequest{UserID: "not-a-uuid", Amount: -1}}, // the item's own problem
		}
		want := []string{"", "", payouts.PTaxFormMissing, payouts.PInsufficientFunds, "", payouts.PInvalidInput}
		got, err := e.svc.PreflightBatch(e.ctx, e.app, payouts.PreflightBatchRequest{Items: items})
		if err != nil {
			t.Fatal(err)
		}
		if got.OK || len(got.Items) != len(want) {
			t.Fatalf("batch = %+v", got)
		}
		for i, w := range want {
			if p := got.Items[i]; (w == "") != p.OK || (w != "" && !p.Has(w)) {
				t.Errorf("item %d = %+v, want %q", i, p, w)
			}
		}
		// The real requests, one after another, meet the same refusals.
		for i, it := range items[:5] {
			var err error
			if it.Transfer != nil {
				_, err = e.svc.CreateTransfer(e.ctx, e.app, *it.Transfer)
			} else {
				_, err = e.svc.CreatePayout(e.ctx, e.app, *it.Payout)
			}
			wantCode(t, err, map[string]string{"": "", payouts.PTaxFormMissing: payouts.EUserInfoMissing,
				payouts.PInsufficientFunds: payouts.EInsufficientFunds}[want[i]])
		}
	})
}

// TestPreflightBatchBounds refuses a batch that is empty, too large or holds an item of neither
// kind, as a whole.
func TestPreflightBatchBounds(t *testing.T) {
	e := newEnv(t, 0)
	one := payouts.PreflightItem{Transfer: &payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -1}}
	tests := []struct {
		name  string
		items []payouts.PreflightItem
	}{
		{"empty", nil},
		{"too many", make([]payouts.PreflightItem, payouts.MaxPreflightItems+1)},
		{"an item of neither kind", []payouts.PreflightItem{one, {}}},
		{"an item of both kinds", []payouts.PreflightItem{{Transfer: one.Transfer, Payout: &payouts.CreatePayoutRequest{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.PreflightBatch(e.ctx, e.app, payouts.PreflightBatchRequest{Items: tt.items})
			wantCode(t, err, payouts.EInvalidInput)
		})
	}
}

// TestPreflightLinkAndApproval runs the preflight of a payout link (its issue, and what its
// claim would meet when it is to a user) and of a payout request's approval, then the real
// requests on the same state: the preflight names what the real one meets, and writes nothing.
func TestPreflightLinkAndApproval(t *testing.T) {
	const deposit = 300_000
	const ghost = "0190a0b0-0000-7000-8000-000000000001"
	// real makes what the item asks for and answers the refusal it meets: a link's, or its
	// claim's payout's (claimed by the user, then paid out of the wallet to their default method,
	// unless the flow first asks for what the user lacks: a method, or the tax form).
	real := func(t *testing.T, e *env, it payouts.PreflightItem, flowAsks bool) error {
		t.Helper()
		if it.PayoutRequest != "" {
			_, err := e.svc.ReviewPayoutRequest(e.ctx, e.app, it.PayoutRequest, payouts.ReviewPayoutRequestRequest{Action: payouts.ReviewApprove})
			return err
		}
		l, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, *it.PayoutLink)
		if err != nil || it.PayoutLink.UserID == "" {
			return err
		}
		if _, err := e.svc.ClaimPayoutLink(e.ctx, l.ID, e.user.ID); err != nil {
			return err
		}
		if flowAsks || it.PayoutLink.ForceCollectComplianceInfo {
			return nil
		}
		_, err = e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: int64(l.Amount), Platform: payouts.PlatformDefault})
		return err
	}
	link := func(req payouts.CreatePayoutLinkRequest) func(*testing.T, *env) payouts.PreflightItem {
		return func(t *testing.T, e *env) payouts.PreflightItem {
			req := req // each engine's env has its own user
			if req.UserID == "user" {
				req.UserID = e.user.ID
			}
			return payouts.PreflightItem{PayoutLink: &req}
		}
	}
	request := func(amount int64) func(*testing.T, *env) payouts.PreflightItem {
		return func(t *testing.T, e *env) payouts.PreflightItem {
			r, err := e.svc.CreatePayoutRequest(e.ctx, e.app, payouts.CreatePayoutRequestRequest{UserID: e.user.ID, Amount: amount})
			if err != nil {
				t.Fatal(err)
			}
			return payouts.PreflightItem{PayoutRequest: r.ID}
		}
	}
	tests := []struct {
		name      string
		owesW9    bool // the user was paid $2,000 this year, past the 1099 threshold, without a W-9
		noMethod  bool
		item      func(*testing.T, *env) payouts.PreflightItem
		code      string // the preflight's problem; "" for none
		field     string
		errorCode string // what the real request (or the claim's payout) answers
		held      bool
	}{
		{name: "a link to a user", item: link(payouts.CreatePayoutLinkRequest{Amount: 5_000, UserID: "user"})},
		{name: "a link to a user with no method: the flow asks for one", noMethod: true,
			item: link(payouts.CreatePayoutLinkRequest{Amount: 5_000, UserID: "user"})},
		{name: "a link to nobody", item: link(payouts.CreatePayoutLinkRequest{Amount: 5_000})},
		{name: "a link the app's wallet cannot reserve", item: link(payouts.CreatePayoutLinkRequest{Amount: deposit + 1}),
			code: payouts.PInsufficientFunds, errorCode: payouts.EInsufficientFunds},
		{name: "a link to no such user", item: link(payouts.CreatePayoutLinkRequest{Amount: 100, UserID: ghost}),
			code: payouts.PUserNotFound, field: "user_id", errorCode: payouts.ENotFound},
		{name: "a link by sms to nobody's phone", item: link(payouts.CreatePayoutLinkRequest{Amount: 100,
			Delivery: &payouts.Delivery{Method: payouts.DeliverySMS}}), code: payouts.PInvalidInput, field: "payee.phone_number",
			errorCode: payouts.EInvalidInput},
		{name: "a link whose claim takes the user past the 1099 threshold", item: link(payouts.CreatePayoutLinkRequest{Amount: 200_000, UserID: "user"}),
			code: payouts.PTaxFormMissing, errorCode: payouts.EUserInfoMissing},
		{name: "the same, tax exempt", item: link(payouts.CreatePayoutLinkRequest{Amount: 200_000, UserID: "user", TaxExempt: true})},
		{name: "the same, its flow collecting the tax form", item: link(payouts.CreatePayoutLinkRequest{Amount: 200_000, UserID: "user",
			ForceCollectComplianceInfo: true})},
		{name: "a link whose claim's payout is held", item: link(payouts.CreatePayoutLinkRequest{Amount: 1313, UserID: "user"}), held: true},
		{name: "an approval that pays at once", item: request(5_000)},
		{name: "an approval the app's wallet cannot pay at once", item: request(deposit), code: payouts.PInsufficientFunds,
			errorCode: payouts.EInsufficientFunds},
		{name: "an approval that sends a link the app cannot reserve", noMethod: true, item: request(deposit + 1),
			code: payouts.PInsufficientFunds, errorCode: payouts.EInsufficientFunds},
		{name: "an approval to a user who owes a W-9 sends a link whose claim meets it", owesW9: true, item: request(5_000),
			code: payouts.PTaxFormMissing},
		{name: "an approval of a decided request", item: func(t *testing.T, e *env) payouts.PreflightItem {
			it := request(100)(t, e)
			if _, err := e.svc.ReviewPayoutRequest(e.ctx, e.app, it.PayoutRequest, payouts.ReviewPayoutRequestRequest{Action: payouts.ReviewReject, Reason: "no"}); err != nil {
				t.Fatal(err)
			}
			return it
		}, code: payouts.PInvalidInput, errorCode: payouts.EInvalidTransaction},
		{name: "an approval of no such request", item: func(*testing.T, *env) payouts.PreflightItem {
			return payouts.PreflightItem{PayoutRequest: ghost}
		}, code: payouts.PInvalidInput, field: "payout_request", errorCode: payouts.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, dsn string) {
				e := newEnvOn(t, dsn, nil, deposit)
				if !tt.noMethod {
					e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
				}
				if tt.owesW9 {
					if _, err := e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: 200_000}); err != nil {
						t.Fatal(err)
					}
					if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -200_000}); err != nil {
						t.Fatal(err)
					}
				}
				it := tt.item(t, e)
				before := e.snapshot(t)
				batch, err := e.svc.PreflightBatch(e.ctx, e.app, payouts.PreflightBatchRequest{Items: []payouts.PreflightItem{it}})
				if err != nil {
					t.Fatal(err)
				}
				if after := e.snapshot(t); after != before {
					t.Fatalf("the preflight wrote: %s, then %s", before, after)
				}
				pf := batch.Items[0]
				switch {
				case tt.code == "" && !pf.OK:
					t.Fatalf("preflight refused: %+v", pf.Problems)
				case tt.code != "" && (pf.OK || len(pf.Problems) != 1 || pf.Problems[0].Code != tt.code || pf.Problems[0].Field != tt.field):
					t.Fatalf("preflight = %+v, want one problem %s on %q", pf, tt.code, tt.field)
				case tt.held != (len(pf.Notices) == 1 && pf.Notices[0].Code == payouts.NHeldForReview):
					t.Fatalf("notices = %+v, want held %v", pf.Notices, tt.held)
				}
				if tt.code == payouts.PTaxFormMissing && tt.errorCode == "" {
					return // the approval sends a link; the claim's payout is the link case's
				}
				wantCode(t, real(t, e, it, tt.noMethod), tt.errorCode)
			})
		})
	}
}
