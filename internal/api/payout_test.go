package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// start is when the payout tests begin: a Monday noon in 2026, whose 1099 threshold is $2,000.
var start = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// frozen starts the service on a clock stopped at start and without its background worker, so
// that payouts settle, and payout links go out, only when the test calls settle or deliver.
func frozen() []servicetest.Option {
	return []servicetest.Option{
		servicetest.WithClock(testclock.New(start)),
		servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 }),
	}
}

// settle moves the clock on by d, then settles the payouts due, as the worker would, and returns
// how many it moved on.
func settle(t *testing.T, env *servicetest.Env, d time.Duration) int {
	t.Helper()
	env.Clock.Advance(d)
	n, err := env.Service.SettleDue(context.Background(), 100)
	if err != nil {
		t.Fatalf("settle: %v", err)
	}
	return n
}

// Payout method bodies with and without the sandbox's test triggers.
var (
	paypalBody         = map[string]any{"platform": "paypal", "email": "ada@example.com"}
	slowFailPayPalBody = map[string]any{"platform": "paypal", "email": "slowfail@example.com"}
	failingVenmoBody   = map[string]any{"platform": "venmo", "handle": "fail-account"}
)

// achBody is an ach payout method with the account number given: ending in 9999 it fails at
// settlement, ending in 0000 the rail refuses it at once.
func achBody(accountNumber string) map[string]any {
	return map[string]any{"platform": "ach", "routing_number": "011000015", "account_number": accountNumber, "account_type": "checking"}
}

// addMethod saves a payout method for a user of the app with creds.
func addMethod(t *testing.T, env *servicetest.Env, creds payouts.Credentials, userID string, body map[string]any) payouts.PayoutMethod {
	t.Helper()
	resp := env.DoAs(t, creds, "PUT", "/v2/users/"+userID+"/payout-methods", body)
	return servicetest.Want[payouts.PayoutMethod](t, resp, "add payout method", http.StatusOK)
}

// createPayout sends a payout as the first app; it must be accepted.
func createPayout(t *testing.T, env *servicetest.Env, body map[string]any) payouts.Transfer {
	t.Helper()
	var tr payouts.Transfer
	call{method: "POST", path: "/v2/payouts", body: body, status: http.StatusCreated}.do(t, env).Decode(t, &tr)
	return tr
}

// getTransfer reads a transfer of the first app.
func getTransfer(t *testing.T, env *servicetest.Env, id string) payouts.Transfer {
	t.Helper()
	var tr payouts.Transfer
	call{method: "GET", path: "/v2/transfers/" + id, status: http.StatusOK}.do(t, env).Decode(t, &tr)
	return tr
}

// balances is what the app's wallet and a user's wallet hold: posted, and withdrawable (posted
// minus reservations).
type balances struct {
	app, appFree, user, userFree payouts.Money
}

func (b balances) String() string {
	return fmt.Sprintf("app %v (withdrawable %v), user %v (withdrawable %v)", b.app, b.appFree, b.user, b.userFree)
}

// balancesOf reads the wallets of the app with creds and of its user through the API.
func balancesOf(t *testing.T, env *servicetest.Env, creds payouts.Credentials, userID string) balances {
	t.Helper()
	a := getApp(t, env, creds).Wallet
	u := servicetest.Want[payouts.User](t, env.DoAs(t, creds, "GET", "/v2/users/"+userID, nil), "get user", http.StatusOK)
	return balances{a.Amount, a.WithdrawableAmount, u.Wallet.Amount, u.Wallet.WithdrawableAmount}
}

// lines describes the transactions of a transfer as "type amount status", sorted, so that a
// test can say which ledger lines a transfer must have.
func lines(tr payouts.Transfer) []string {
	out := make([]string, len(tr.Transactions))
	for i, x := range tr.Transactions {
		out[i] = fmt.Sprintf("%s %d %s", x.Type, x.Amount, x.Status)
	}
	slices.Sort(out)
	return out
}

// patch returns a copy of base with changes applied; a change to nil leaves the key out.
func patch(base, changes map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// bigMetadata is metadata just over the 8 KiB limit.
func bigMetadata() map[string]any {
	return map[string]any{"note": strings.Repeat("x", payouts.MaxMetadataBytes)}
}

func TestCreatePayout(t *testing.T) {
	t.Parallel()
	w := newWorld(t, frozen()...)
	env := w.env
	paypal := addMethod(t, env, w.app, w.user.ID, paypalBody) // the first method: the default
	ach := addMethod(t, env, w.app, w.user.ID, achBody("12345678"))
	neighbour := createUser(t, env, w.app)
	neighboursACH := addMethod(t, env, w.app, neighbour.ID, achBody("87654321"))
	bare := createUser(t, env, w.app) // no payout method at all
	othersPayPal := addMethod(t, env, w.other, w.otherUser.ID, paypalBody)
	before := balancesOf(t, env, w.app, w.user.ID)

	path := "/v2/payouts"
	base := map[string]any{"user_id": w.user.ID, "amount": 10_00, "platform": "paypal"}
	bad := func(name string, changes map[string]any, status int, code, field string) call {
		return call{name: name, method: "POST", path: path, body: patch(base, changes), status: status, code: code, field: field}
	}
	invalid := func(name string, changes map[string]any, field string) call {
		return bad(name, changes, http.StatusBadRequest, payouts.EInvalidInput, field)
	}
	calls := badBodies("POST", path, `{"user_id": "`+w.user.ID+`", "amount": 100, "platform": 5}`, "platform")
	calls = append(calls, amountBodies("POST", path, `{"user_id": "`+w.user.ID+`", "platform": "paypal", "amount": %s}`)...)
	calls = append(calls,
		invalid("zero amount", map[string]any{"amount": 0}, "amount"),
		invalid("negative amount", map[string]any{"amount": -10_00}, "amount"),
		invalid("missing amount", map[string]any{"amount": nil}, "amount"),
		invalid("missing user_id", map[string]any{"user_id": nil}, "user_id"),
		invalid("malformed user_id", map[string]any{"user_id": "ada"}, "user_id"),
		invalid("user_id a number", map[string]any{"user_id": 7}, "user_id"),
		invalid("missing platform", map[string]any{"platform": nil}, "platform"),
		invalid("unknown platform", map[string]any{"platform": "zelle"}, "platform"),
		invalid("ach without account_id", map[string]any{"platform": "ach"}, "account_id"),
		invalid("bank_transfer without account_id", map[string]any{"platform": "bank_transfer"}, "account_id"),
		invalid("malformed account_id", map[string]any{"account_id": "acct_1"}, "account_id"),
		invalid("account_id a number", map[string]any{"account_id": 7}, "account_id"),
		invalid("unknown account_id", map[string]any{"platform": "ach", "account_id": unknownID}, "account_id"),
		invalid("account_id of another user", map[string]any{"platform": "ach", "account_id": neighboursACH.ID}, "account_id"),
		invalid("account_id of another app's user", map[string]any{"account_id": othersPayPal.ID}, "account_id"),
		invalid("account_id of another platform", map[string]any{"platform": "venmo", "account_id": ach.ID}, "account_id"),
		invalid("unknown payout_fee_party", map[string]any{"payout_fee_party": "nobody"}, "payout_fee_party"),
		invalid("payout_fee_party a boolean", map[string]any{"payout_fee_party": true}, "payout_fee_party"),
		invalid("the user's fee takes the whole amount", map[string]any{"amount": 25, "payout_fee_party": "user"}, "amount"),
		invalid("metadata over 8 KiB", map[string]any{"metadata": bigMetadata()}, "metadata"),
		invalid("metadata a number", map[string]any{"metadata": 5}, "metadata"),
		invalid("fund a string", map[string]any{"fund": "yes"}, "fund"),
		invalid("tax_exempt a number", map[string]any{"tax_exempt": 1}, "tax_exempt"),
		invalid("idempotency_key not a UUID", map[string]any{"idempotency_key": "key-1"}, "idempotency_key"),
		bad("unknown user", map[string]any{"user_id": unknownID}, http.StatusNotFound, payouts.ENotFound, ""),
		bad("another app's user", map[string]any{"user_id": w.otherUser.ID}, http.StatusNotFound, payouts.ENotFound, ""),
		bad("no method of the platform", map[string]any{"platform": "cash_app"}, http.StatusUnprocessableEntity, payouts.EUserInfoMissing, ""),
		bad("no default method", map[string]any{"user_id": bare.ID, "platform": "default", "fund": true},
			http.StatusUnprocessableEntity, payouts.EUserInfoMissing, ""),
		bad("more than the user has", map[string]any{"amount": 50_01}, http.StatusUnprocessableEntity, payouts.EInsufficientFunds, ""),
		bad("more than the user has, with the fee", map[string]any{"amount": 50_01, "payout_fee_party": "user"},
			http.StatusUnprocessableEntity, payouts.EInsufficientFunds, ""),
		bad("fund more than the app has", map[string]any{"amount": 200_000_00, "fund": true},
			http.StatusUnprocessableEntity, payouts.EInsufficientFunds, ""),
	)
	runCalls(t, env, calls)

	// The refused payouts moved no money and made no transfer.
	if got := balancesOf(t, env, w.app, w.user.ID); got != before {
		t.Fatalf("after refused payouts: %v, want %v", got, before)
	}
	var list payouts.List[payouts.Transfer]
	env.Do(t, "GET", "/v2/transfers?type=payout", nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("refused payouts made transfers: %+v", list.Data)
	}
	env.CheckLedger(t)

	for _, tt := range []struct {
		name      string
		changes   map[string]any
		method    payouts.PayoutMethod
		wantLines []string
	}{
		{"paypal", map[string]any{"metadata": map[string]any{"invoice": "A-1"}, "unknown": true}, paypal,
			[]string{"fee 25 pending", "payout 1000 pending"}},
		{"default is the user's default method", map[string]any{"platform": "default"}, paypal,
			[]string{"fee 25 pending", "payout 1000 pending"}},
		{"bank_transfer is ach, which is free", map[string]any{"platform": "bank_transfer", "account_id": ach.ID}, ach,
			[]string{"payout 1000 pending"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := createPayout(t, env, patch(base, tt.changes))
			if !payouts.ValidID(tr.ID) || tr.Type != payouts.TransferPayout || tr.Status != payouts.TransferPending ||
				tr.Amount != 10_00 || tr.UserID == nil || *tr.UserID != w.user.ID || tr.PayoutLinkID != nil {
				t.Errorf("payout %+v", tr)
			}
			if x := tr.ExternalData; x.AccountID != tt.method.ID || x.Platform != tt.method.Platform || !strings.HasPrefix(x.ExternalID, "sbx_") {
				t.Errorf("external_data %+v, want the %s method %s and the sandbox rail's id", x, tt.method.Platform, tt.method.ID)
			}
			if md, ok := tt.changes["metadata"]; ok && string(tr.Metadata) != `{"invoice":"A-1"}` {
				t.Errorf("metadata %s, want %v", tr.Metadata, md)
			}
			if got := lines(tr); !slices.Equal(got, tt.wantLines) {
				t.Errorf("transactions %v, want %v", got, tt.wantLines)
			}
			if got := getTransfer(t, env, tr.ID); got.Status != tr.Status || !slices.Equal(lines(got), lines(tr)) {
				t.Errorf("read back %+v, want %+v", got, tr)
			}
			env.CheckLedger(t)
		})
	}
	// Three payouts of $10 reserve $30 of the user's $50; two fees of 25 cents reserve the app's.
	want := balances{before.app, before.appFree - 50, before.user, before.userFree - 30_00}
	if got := balancesOf(t, env, w.app, w.user.ID); got != want {
		t.Errorf("after three payouts: %v, want %v", got, want)
	}
}

// TestPayoutNeedsTaxForm pays a user past the 1099 threshold: payouts are refused with
// user-info-missing, moving nothing, until a W-9 is on file.
func TestPayoutNeedsTaxForm(t *testing.T) {
	t.Parallel()
	env, creds, user := startWithUser(t, 5_000_00, frozen()...)
	addMethod(t, env, creds, user.ID, paypalBody)
	transfer(t, env, creds, user.ID, -2_000_00) // the 2026 threshold
	if c := getUser(t, env, user.ID).Compliance; !c.MustCollect1099 {
		t.Fatalf("paid $2,000 in 2026 without a W-9: compliance %+v, want must_collect_1099", c)
	}
	before := balancesOf(t, env, creds, user.ID)
	body := map[string]any{"user_id": user.ID, "amount": 100_00, "platform": "paypal"}
	runCalls(t, env, []call{
		{name: "from the user's wallet", method: "POST", path: "/v2/payouts", body: body,
			status: http.StatusUnprocessableEntity, code: payouts.EUserInfoMissing},
		{name: "funded by the app", method: "POST", path: "/v2/payouts", body: patch(body, map[string]any{"fund": true}),
			status: http.StatusUnprocessableEntity, code: payouts.EUserInfoMissing},
	})
	if got := balancesOf(t, env, creds, user.ID); got != before {
		t.Fatalf("refused payouts moved money: %v, want %v", got, before)
	}

	call{method: "PUT", path: "/v2/users/" + user.ID + "/compliance", body: map[string]any{"w9": w9()}, status: http.StatusOK}.do(t, env)
	if tr := createPayout(t, env, body); tr.Status != payouts.TransferPending {
		t.Errorf("payout after the W-9: %+v", tr)
	}
}
