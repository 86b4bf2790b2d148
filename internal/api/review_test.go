package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

// flagAmount is the sandbox's trigger: a payout of exactly $13.13 is held for review.
const flagAmount = 13_13

// TestReviewTransfer holds payouts of the flagged amount, which no settlement moves, then
// releases one (it completes on the rail) and rejects others (the money returns to whoever it
// came from), on both databases, with the wallets to the cent and the ledger after every step.
func TestReviewTransfer(t *testing.T) {
	t.Parallel()
	const deposited = 1_000_00
	tests := []struct {
		name      string
		userFunds int64
		fund      bool
		review    map[string]any

		wantHeld    balances
		wantStatus  payouts.TransferStatus // right after the review
		wantEnd     balances
		wantLines   []string
		wantReason  string
		wantHistory []payouts.TransferStatus
	}{
		{
			name: "released, it completes", userFunds: 50_00, review: map[string]any{"action": "release"},
			wantHeld:   balances{950_00, 949_75, 50_00, 36_87},
			wantStatus: payouts.TransferPending, wantEnd: balances{949_75, 949_75, 36_87, 36_87},
			wantLines:   []string{"fee 25 posted", "payout 1313 posted"},
			wantHistory: []payouts.TransferStatus{payouts.TransferFlagged, payouts.TransferPending, payouts.TransferCompleted},
		},
		{
			name: "rejected, the app gets its funding back", fund: true, review: map[string]any{"action": "reject", "reason": " unknown payee "},
			wantHeld:   balances{986_87, 986_62, 13_13, 0},
			wantStatus: payouts.TransferFailed, wantEnd: balances{1_000_00, 1_000_00, 0, 0},
			wantLines:   []string{"balance 1313 posted", "balance 1313 posted", "fee 25 voided", "payout 1313 voided"},
			wantReason:  "unknown payee",
			wantHistory: []payouts.TransferStatus{payouts.TransferFlagged, payouts.TransferFailed},
		},
		{
			name: "rejected, the user gets their money back", userFunds: 50_00, review: map[string]any{"action": "reject"},
			wantHeld:   balances{950_00, 949_75, 50_00, 36_87},
			wantStatus: payouts.TransferFailed, wantEnd: balances{950_00, 950_00, 50_00, 50_00},
			wantLines:   []string{"fee 25 voided", "payout 1313 voided"},
			wantReason:  "rejected in review",
			wantHistory: []payouts.TransferStatus{payouts.TransferFlagged, payouts.TransferFailed},
		},
	}
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					env, creds, user := startWithUser(t, deposited, engine.frozen()...)
					addMethod(t, env, creds, user.ID, paypalBody)
					if tt.userFunds > 0 {
						transfer(t, env, creds, user.ID, -tt.userFunds)
					}
					tr := createPayout(t, env, map[string]any{"user_id": user.ID, "amount": flagAmount, "platform": "paypal", "fund": tt.fund})
					if tr.ExternalData.ExternalID != "" {
						t.Errorf("a held payout went to the rail: %+v", tr.ExternalData)
					}
					checkPayout(t, env, creds, user.ID, tr.ID, "held", payouts.TransferFlagged, tt.wantHeld)
					if n := settle(t, env, 24*time.Hour); n != 0 {
						t.Fatalf("%d held payouts settled without a review", n)
					}
					checkPayout(t, env, creds, user.ID, tr.ID, "held a day", payouts.TransferFlagged, tt.wantHeld)

					path := "/v2/transfers/" + tr.ID + "/review"
					var reviewed payouts.Transfer
					call{method: "POST", path: path, body: tt.review, status: http.StatusOK}.do(t, env).Decode(t, &reviewed)
					if reviewed.ID != tr.ID || reviewed.Status != tt.wantStatus {
						t.Fatalf("review answered %+v, want the transfer %s", reviewed, tt.wantStatus)
					}
					env.CheckLedger(t)
					if tt.wantStatus == payouts.TransferPending {
						if n := settle(t, env, 5*time.Second); n != 1 {
							t.Fatalf("%d payouts settled after the release and the rail's delay, want 1", n)
						}
					}
					final := checkPayout(t, env, creds, user.ID, tr.ID, "after the review", tt.wantHistory[len(tt.wantHistory)-1], tt.wantEnd)
					if got := lines(final); !slices.Equal(got, tt.wantLines) {
						t.Errorf("transactions %v, want %v", got, tt.wantLines)
					}
					if final.FailureReason != tt.wantReason {
						t.Errorf("failure_reason %q, want %q", final.FailureReason, tt.wantReason)
					}
					var history []payouts.TransferStatus
					for _, c := range final.StatusHistory {
						history = append(history, c.Status)
					}
					if !slices.Equal(history, tt.wantHistory) {
						t.Errorf("status_history %v, want %v", history, tt.wantHistory)
					}

					// A reviewed transfer is no longer flagged: a second review changes nothing.
					for _, action := range []string{"release", "reject"} {
						call{name: "again: " + action, method: "POST", path: path, body: map[string]any{"action": action},
							status: http.StatusUnprocessableEntity, code: payouts.EInvalidTransaction}.do(t, env)
					}
					settle(t, env, time.Hour)
					checkPayout(t, env, creds, user.ID, tr.ID, "after a second review", final.Status, tt.wantEnd)
				})
			}
		})
	}
}

func TestReviewTransferInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	addMethod(t, env, w.app, w.user.ID, paypalBody)
	addMethod(t, env, w.other, w.otherUser.ID, paypalBody)
	held := createPayout(t, env, map[string]any{"user_id": w.user.ID, "amount": flagAmount, "platform": "paypal"})
	pending := createPayout(t, env, map[string]any{"user_id": w.user.ID, "amount": 1_00, "platform": "paypal"})
	var othersHeld payouts.Transfer
	call{method: "POST", path: "/v2/payouts", as: &w.other, status: http.StatusCreated,
		body: map[string]any{"user_id": w.otherUser.ID, "amount": flagAmount, "platform": "paypal"}}.do(t, env).Decode(t, &othersHeld)
	before := balancesOf(t, env, w.app, w.user.ID)

	pathOf := func(id string) string { return "/v2/transfers/" + id + "/review" }
	path := pathOf(held.ID)
	bad := func(name string, body any, field string) call {
		return call{name: name, method: "POST", path: path, body: body, status: http.StatusBadRequest, code: payouts.EInvalidInput, field: field}
	}
	notFlagged := func(name, id string) call {
		return call{name: name, method: "POST", path: pathOf(id), body: map[string]any{"action": "release"},
			status: http.StatusUnprocessableEntity, code: payouts.EInvalidTransaction}
	}
	calls := badBodies("POST", path, `{"action": 1}`, "action")
	calls = append(calls,
		bad("no action", map[string]any{"reason": "fine"}, "action"),
		bad("unknown action", map[string]any{"action": "approve"}, "action"),
		bad("action in capitals", map[string]any{"action": "RELEASE"}, "action"),
		bad("reason over 500 characters", map[string]any{"action": "reject", "reason": strings.Repeat("r", 501)}, "reason"),
		bad("reason a number", `{"action": "reject", "reason": 5}`, "reason"),
		notFlagged("a completed balance transfer", w.transfer.ID),
		notFlagged("a pending payout", pending.ID),
	)
	calls = append(calls, notFoundCalls("POST", pathOf, map[string]any{"action": "reject"}, othersHeld.ID)...)
	runCalls(t, env, calls)

	if got := getTransfer(t, env, held.ID); got.Status != payouts.TransferFlagged {
		t.Errorf("after refused reviews the held payout is %s", got.Status)
	}
	if got := getTransfer(t, env, pending.ID); got.Status != payouts.TransferPending {
		t.Errorf("after a refused review the pending payout is %s", got.Status)
	}
	var theirs payouts.Transfer
	env.DoAs(t, w.other, "GET", "/v2/transfers/"+othersHeld.ID, nil).Decode(t, &theirs)
	if theirs.Status != payouts.TransferFlagged {
		t.Errorf("another app's held payout was reviewed through this app: %s", theirs.Status)
	}
	if got := balancesOf(t, env, w.app, w.user.ID); got != before {
		t.Errorf("refused reviews moved money: %v, want %v", got, before)
	}
}

// TestConcurrentReviews sends ten reviews of one flagged payout at once, half releasing and half
// rejecting it, on both databases: exactly one is applied, the others are refused with 422, and
// the money is where that one review put it.
func TestConcurrentReviews(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env, creds, user := startWithUser(t, 1_000_00, engine.frozen()...)
			addMethod(t, env, creds, user.ID, paypalBody)
			held := createPayout(t, env, map[string]any{"user_id": user.ID, "amount": flagAmount, "platform": "paypal", "fund": true})

			reqs := make([]*http.Request, 10)
			for i := range reqs {
				action := []string{"release", "reject"}[i%2]
				reqs[i] = env.NewRequest(t, "POST", "/v2/transfers/"+held.ID+"/review", map[string]any{"action": action})
			}
			var applied []payouts.Transfer
			for _, a := range concurrently(env, reqs) {
				switch {
				case a.err != nil:
					t.Fatalf("review: %v", a.err)
				case a.status == http.StatusOK:
					var tr payouts.Transfer
					if err := json.Unmarshal(a.body, &tr); err != nil {
						t.Fatalf("review answered %s: %v", a.body, err)
					}
					applied = append(applied, tr)
				case a.status == http.StatusUnprocessableEntity && strings.Contains(string(a.body), payouts.EInvalidTransaction):
				default:
					t.Errorf("review answered %d %s, want 200 or 422 %s", a.status, a.body, payouts.EInvalidTransaction)
				}
			}
			if len(applied) != 1 {
				t.Fatalf("%d reviews applied, want exactly 1", len(applied))
			}
			settle(t, env, time.Minute)
			want := balances{1_000_00, 1_000_00, 0, 0} // rejected: the funding is back
			if applied[0].Status == payouts.TransferPending {
				want = balances{1_000_00 - flagAmount - 25, 1_000_00 - flagAmount - 25, 0, 0} // released and paid
			}
			if got := balancesOf(t, env, creds, user.ID); got != want {
				t.Errorf("after the review (%s): %v, want %v", applied[0].Status, got, want)
			}
			env.CheckLedger(t)
		})
	}
}
