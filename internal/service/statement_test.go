package service_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// TestStatementClosesOverRandomHistories plays random histories of deposits, transfers both
// ways, payouts that settle or fail (funded or from the user's wallet, fees paid by either side,
// failures voiding the reservations), on both engines, noting every wallet's ledger balance
// between steps. For random periods of the app's wallet and each user's, the statement must open
// and close at the balances noted then, its lines must add up from one to the other with the
// running balance, its in, out and per-type sums must agree, consecutive periods must chain, and
// a statement up to now must close at the wallet's balance.
func TestStatementClosesOverRandomHistories(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
				e := newEnvOn(t, dsn, nil, 0)
				rng := rand.New(rand.NewPCG(seed, 27))
				h := playHistory(t, e, rng, 60)
				for _, w := range h.wallets {
					h.checkStatements(t, e, rng, w)
				}
			})
		}
	})
}

// history is what playHistory noted: the instants between steps and every wallet's balance at
// each of them (a step's lines are all posted before the instant after it, none after).
type history struct {
	at       []time.Time
	wallets  []string                   // "" is the app's wallet, else a user id
	balances map[string][]payouts.Money // per wallet, per instant
}

func playHistory(t *testing.T, e *env, rng *rand.Rand, steps int) *history {
	t.Helper()
	bea := e.newUser(t, "bea@example.com", "4155550101")
	users := []*payouts.User{e.user, bea}
	methods := []payouts.AddPayoutMethodRequest{
		{Platform: payouts.PlatformPayPal, Email: "ok@example.com"},
		{Platform: payouts.PlatformPayPal, Email: "slowfail@example.com"},
		{Platform: payouts.PlatformVenmo, Handle: "fail-account"},
	}
	h := &history{wallets: []string{"", e.user.ID, bea.ID}, balances: map[string][]payouts.Money{}}
	note := func() {
		e.clock.Advance(time.Second) // the step's lines are dated before the instant noted
		h.at = append(h.at, e.clock.Now())
		for _, w := range h.wallets {
			h.balances[w] = append(h.balances[w], h.balance(t, e, w))
		}
		e.clock.Advance(time.Second) // and the next step's after it
	}
	note()
	if _, err := e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: 50000}); err != nil {
		t.Fatal(err)
	}
	note()
	for range steps {
		u := users[rng.IntN(len(users))]
		amount := int64(100 + rng.IntN(5000))
		var err error
		switch op := rng.IntN(6); op {
		case 0:
			_, err = e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: amount})
		case 1: // to the user
			_, err = e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: u.ID, Amount: -amount})
		case 2: // back to the app
			_, err = e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: u.ID, Amount: amount})
		case 3, 4: // a payout, funded by the app or from the user's wallet; either side pays the fee
			m := methods[rng.IntN(len(methods))]
			e.addMethod(t, u.ID, m)
			party := []payouts.FeeParty{payouts.FeePartyUser, payouts.FeePartyPlatform}[rng.IntN(2)]
			_, err = e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: u.ID, Amount: amount,
				Platform: m.Platform, Fund: op == 3, PayoutFeeParty: party})
		case 5: // time passes; the rails settle or fail what is due
			e.settle(t, time.Duration(rng.IntN(40))*time.Second)
		}
		if err != nil && payouts.ErrorCode(err) != payouts.EInsufficientFunds && payouts.ErrorCode(err) != payouts.EInvalidInput {
			t.Fatal(err)
		}
		note()
	}
	e.settle(t, time.Minute)
	note()
	return h
}

// balance is the wallet's posted balance now, as the API reads it.
func (h *history) balance(t *testing.T, e *env, wallet string) payouts.Money {
	t.Helper()
	if wallet == "" {
		app, err := e.svc.GetApp(e.ctx, e.app, e.app)
		if err != nil {
			t.Fatal(err)
		}
		return app.Wallet.Amount
	}
	u, err := e.svc.GetUser(e.ctx, e.app, wallet)
	if err != nil {
		t.Fatal(err)
	}
	return u.Wallet.Amount
}

func (h *history) checkStatements(t *testing.T, e *env, rng *rand.Rand, wallet string) {
	t.Helper()
	statement := func(from, to time.Time) *payouts.Statement {
		t.Helper()
		s, err := e.svc.Statement(e.ctx, e.app, payouts.StatementRequest{UserID: wallet, From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		checkStatementAddsUp(t, s)
		return s
	}
	// The whole history, up to now and beyond: closes at the wallet's balance.
	whole := statement(h.at[0].Add(-time.Hour), e.clock.Now().Add(time.Hour))
	if whole.OpeningBalance != 0 || whole.ClosingBalance != h.balance(t, e, wallet) {
		t.Fatalf("wallet %q: whole history %v -> %v, ledger balance %v", wallet, whole.OpeningBalance, whole.ClosingBalance, h.balance(t, e, wallet))
	}
	last := len(h.at) - 1
	for range 20 {
		// Three noted instants, in order: two consecutive periods.
		a, b, c := rng.IntN(last+1), rng.IntN(last+1), rng.IntN(last+1)
		a, b, c = min(a, b, c), a+b+c-min(a, b, c)-max(a, b, c), max(a, b, c)
		if a == b || b == c {
			continue
		}
		first, second := statement(h.at[a], h.at[b]), statement(h.at[b], h.at[c])
		if first.OpeningBalance != h.balances[wallet][a] || first.ClosingBalance != h.balances[wallet][b] ||
			second.ClosingBalance != h.balances[wallet][c] {
			t.Fatalf("wallet %q: statements %v -> %v -> %v, ledger balances then %v, %v, %v", wallet,
				first.OpeningBalance, first.ClosingBalance, second.ClosingBalance,
				h.balances[wallet][a], h.balances[wallet][b], h.balances[wallet][c])
		}
		if first.ClosingBalance != second.OpeningBalance {
			t.Fatalf("wallet %q: consecutive periods do not chain: %v then %v", wallet, first.ClosingBalance, second.OpeningBalance)
		}
		// An instant within a step's lines, not a noted one: the periods still chain.
		mid := h.at[a].Add(time.Duration(rng.Int64N(int64(h.at[c].Sub(h.at[a])))))
		if mid.After(h.at[a]) {
			if x, y := statement(h.at[a], mid), statement(mid, h.at[c]); x.ClosingBalance != y.OpeningBalance ||
				y.ClosingBalance != h.balances[wallet][c] {
				t.Fatalf("wallet %q: split at %v: %v | %v -> %v, want %v", wallet, mid, x.ClosingBalance, y.OpeningBalance,
					y.ClosingBalance, h.balances[wallet][c])
			}
		}
	}
}

// checkStatementAddsUp checks a statement against itself: the lines add up from the opening to
// the closing balance, each running balance follows, each line is of the period, and the in, out
// and per-type sums agree with the lines.
func checkStatementAddsUp(t *testing.T, s *payouts.Statement) {
	t.Helper()
	balance, in, out := s.OpeningBalance, payouts.Money(0), payouts.Money(0)
	perType := map[string]payouts.TypeTotal{}
	for _, m := range s.Movements {
		balance += m.Amount
		if m.Amount == 0 || m.Balance != balance || m.Posted.Before(s.From.Time) || !m.Posted.Before(s.To.Time) {
			t.Fatalf("line %+v of a statement from %v (%v to %v)", m, s.OpeningBalance, s.From, s.To)
		}
		tt := perType[string(m.Type)]
		tt.Count++
		if m.Amount > 0 {
			in, tt.MoneyIn = in+m.Amount, tt.MoneyIn+m.Amount
		} else {
			out, tt.MoneyOut = out-m.Amount, tt.MoneyOut-m.Amount
		}
		perType[string(m.Type)] = tt
	}
	if balance != s.ClosingBalance || in != s.MoneyIn || out != s.MoneyOut {
		t.Fatalf("lines add up to %v (in %v, out %v); the statement says %v (in %v, out %v)", balance, in, out,
			s.ClosingBalance, s.MoneyIn, s.MoneyOut)
	}
	if len(s.ByType) != len(perType) {
		t.Fatalf("by type %+v, lines %+v", s.ByType, perType)
	}
	for _, got := range s.ByType {
		want := perType[got.Type]
		want.Type = got.Type
		if got != want {
			t.Fatalf("type %s: %+v, lines say %+v", got.Type, got, want)
		}
	}
}
