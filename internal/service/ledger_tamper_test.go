package service_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// tamperedLedger is an app's ledger after random activity, and the rows a tampering edits.
type tamperedLedger struct {
	e *env
	t *testing.T
	// wallet and other are two users' wallets; line is a posted balance line from the app's
	// wallet to wallet; voided is a payout line that was voided; payout a completed payout and
	// transfer a balance transfer.
	wallet, other, line, voided int64
	lineAmount                  int64
	payout, transfer            string
}

func (l *tamperedLedger) exec(query string, args ...any) {
	l.t.Helper()
	db := l.e.st.DB()
	if _, err := db.DB.ExecContext(l.e.ctx, db.Rebind(query), args...); err != nil {
		l.t.Fatalf("%s: %v", query, err)
	}
}

func (l *tamperedLedger) scan(query string, args []any, into ...any) {
	l.t.Helper()
	db := l.e.st.DB()
	if err := db.DB.QueryRowContext(l.e.ctx, db.Rebind(query), args...).Scan(into...); err != nil {
		l.t.Fatalf("%s: %v", query, err)
	}
}

// adjust moves an account's posted totals, as a thief covering their tracks would.
func (l *tamperedLedger) adjust(account, debits, credits int64) {
	l.exec(`UPDATE ledger_accounts SET debits_posted = debits_posted + ?, credits_posted = credits_posted + ? WHERE id = ?`,
		debits, credits, account)
}

// steal adds a posted line of amount from wallet to other, their totals adjusted to it, and
// returns its id.
func (l *tamperedLedger) steal(amount int64) int64 {
	l.exec(`INSERT INTO postings (app_id, transfer_id, debit_account, credit_account, amount, state, type, user_id,
		source_name, destination_name, created, posted) VALUES (?, ?, ?, ?, ?, 'posted', 'balance', NULL, 'Ada', 'Eve', ?, ?)`,
		l.e.app, "01900000-0000-7000-8000-000000000000", l.wallet, l.other, amount, int64(1), int64(1))
	l.adjust(l.wallet, amount, 0)
	l.adjust(l.other, 0, amount)
	var id int64
	l.scan(`SELECT max(id) FROM postings WHERE app_id = ?`, []any{l.e.app}, &id)
	return id
}

// TestCheckFindsTampering tampers with a ledger in each way an insider with the database but not
// the service's key could, covering their tracks in the accounts' totals where they can, and
// sees CheckLedger (what payoutd check runs) name what was done; the same ledger untouched,
// after random activity, passes.
func TestCheckFindsTampering(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(l *tamperedLedger)
		want   string
	}{
		{"a balanced theft between two wallets", func(l *tamperedLedger) { l.steal(40_000) }, "is not in the chain"},
		{"a transfer's amount times 100, the ledger untouched", func(l *tamperedLedger) {
			l.exec(`UPDATE transfers SET amount = amount * 100 WHERE id = ?`, l.transfer)
		}, "its postings move"},
		{"a posting's amount changed", func(l *tamperedLedger) {
			l.exec(`UPDATE postings SET amount = amount + 100 WHERE id = ?`, l.line)
			l.adjust(l.wallet, 0, 100)
			l.adjust(l.appWallet(), 100, 0)
		}, "is not as it was made"},
		{"a posting deleted", func(l *tamperedLedger) {
			l.exec(`DELETE FROM postings WHERE id = ?`, l.line)
			l.adjust(l.wallet, 0, -l.lineAmount)
			l.adjust(l.appWallet(), -l.lineAmount, 0)
		}, "is missing"},
		{"a posting added with a forged entry in the chain", func(l *tamperedLedger) {
			id := l.steal(40_000)
			var head int64
			l.scan(`SELECT seq FROM ledger_chain_heads WHERE app_id = ?`, []any{l.e.app}, &head)
			forged := []byte("0123456789abcdef0123456789abcdef")
			l.exec(`INSERT INTO ledger_chain (app_id, seq, posting_id, settles, hash) VALUES (?, ?, ?, ?, ?)`, l.e.app, head+1, id, false, forged)
			l.exec(`UPDATE ledger_chain_heads SET seq = ?, hash = ? WHERE app_id = ?`, head+1, forged, l.e.app)
		}, "is not as it was made"},
		{"a voided reservation committed", func(l *tamperedLedger) {
			var amount, debit, credit int64
			l.scan(`SELECT amount, debit_account, credit_account FROM postings WHERE id = ?`, []any{l.voided}, &amount, &debit, &credit)
			l.exec(`UPDATE postings SET state = 'posted', posted = created WHERE id = ?`, l.voided)
			l.adjust(debit, amount, 0)
			l.adjust(credit, 0, amount)
		}, "is not as it was settled"},
		{"two entries of the chain swapped", func(l *tamperedLedger) {
			l.exec(`UPDATE ledger_chain SET seq = -1 WHERE app_id = ? AND seq = 2`, l.e.app)
			l.exec(`UPDATE ledger_chain SET seq = 2 WHERE app_id = ? AND seq = 3`, l.e.app)
			l.exec(`UPDATE ledger_chain SET seq = 3 WHERE app_id = ? AND seq = -1`, l.e.app)
		}, "is not as it was"},
		{"an account's balance edited", func(l *tamperedLedger) { l.adjust(l.other, 0, 100_000) }, "postings say"},
		{"a completed payout marked failed", func(l *tamperedLedger) {
			l.exec(`UPDATE transfers SET status = 'failed' WHERE id = ?`, l.payout)
		}, "its payout line is posted and was not reversed"},
		{"a posting moved to another wallet", func(l *tamperedLedger) {
			l.exec(`UPDATE postings SET credit_account = ? WHERE id = ?`, l.other, l.line)
			l.adjust(l.wallet, 0, -l.lineAmount)
			l.adjust(l.other, 0, l.lineAmount)
		}, "is not as it was made"},
	}
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				l := busyLedger(t, dsn, uint64(i))
				if err := l.e.svc.CheckLedger(l.e.ctx, l.e.app); err != nil {
					t.Fatalf("the untouched ledger: %v", err)
				}
				l.e.tampered = true
				tc.tamper(l)
				err := l.e.svc.CheckLedger(l.e.ctx, l.e.app)
				var v *service.LedgerViolation
				if !errors.As(err, &v) {
					t.Fatalf("CheckLedger = %v, want a violation", err)
				}
				if !strings.Contains(strings.Join(v.Problems, "\n"), tc.want) {
					t.Fatalf("CheckLedger found\n%s\nwant a problem saying %q", strings.Join(v.Problems, "\n"), tc.want)
				}
			})
		}
	})
}

// busyLedger is a new app on dsn after random activity (seeded): deposits, transfers both ways,
// payouts settled and failed, payout links claimed and canceled; and the rows tamperings edit.
func busyLedger(t *testing.T, dsn string, seed uint64) *tamperedLedger {
	e := newEnvOn(t, dsn, nil, 1_000_000)
	eve := e.newUser(t, "eve@example.com", "4155550199")
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "ada@example.com"})
	e.addMethod(t, eve.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "slowfail@example.com"})
	rng := rand.New(rand.NewPCG(seed, 44))
	users := []string{e.user.ID, eve.ID}
	var transfer, payout string
	for i := 0; i < 24; i++ {
		user, amount := users[rng.IntN(2)], int64(100+rng.IntN(5000))
		switch op := rng.IntN(4); {
		case i < 2: // the app pays each user first
			tr, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: users[i], Amount: -amount - 50_000})
			if err != nil {
				t.Fatal(err)
			}
			transfer = tr.ID
		case op == 0: // the app pays a user
			tr, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: -amount})
			if err != nil {
				t.Fatal(err)
			}
			transfer = tr.ID
		case op == 1: // a user pays the app back
			_, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: amount})
			if err != nil && payouts.ErrorCode(err) != payouts.EInsufficientFunds {
				t.Fatal(err)
			}
		case op == 2: // Ada's payouts complete, Eve's fail when they would settle
			tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: user, Amount: amount, Platform: payouts.PlatformPayPal, Fund: true})
			if err != nil {
				t.Fatal(err)
			}
			if user == e.user.ID {
				payout = tr.ID
			}
		default: // a payout link, claimed or canceled
			link, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: amount,
				Payee: &payouts.Payee{FirstName: "Bo", Email: "bo@example.com"}})
			if err != nil {
				t.Fatal(err)
			}
			if rng.IntN(2) == 0 {
				_, err = e.svc.ClaimPayoutLink(e.ctx, link.ID, user)
			} else {
				_, err = e.svc.CancelPayoutLink(e.ctx, e.app, link.ID)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// A payout of each who always has one, so that each ledger has a completed and a failed one.
	for _, user := range users {
		tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: user, Amount: 1000, Platform: payouts.PlatformPayPal, Fund: true})
		if err != nil {
			t.Fatal(err)
		}
		if user == e.user.ID {
			payout = tr.ID
		}
	}
	e.settle(t, time.Hour)
	l := &tamperedLedger{e: e, t: t, payout: payout, transfer: transfer}
	l.scan(`SELECT id FROM ledger_accounts WHERE app_id = ? AND kind = 'user_wallet' AND ref = ?`, []any{e.app, e.user.ID}, &l.wallet)
	l.scan(`SELECT id FROM ledger_accounts WHERE app_id = ? AND kind = 'user_wallet' AND ref = ?`, []any{e.app, eve.ID}, &l.other)
	l.scan(`SELECT id, amount FROM postings WHERE app_id = ? AND type = 'balance' AND state = 'posted' AND credit_account = ? ORDER BY id LIMIT 1`,
		[]any{e.app, l.wallet}, &l.line, &l.lineAmount)
	l.scan(`SELECT id FROM postings WHERE app_id = ? AND type = 'payout' AND state = 'voided' ORDER BY id LIMIT 1`, []any{e.app}, &l.voided)
	return l
}

// appWallet is the app's wallet account.
func (l *tamperedLedger) appWallet() int64 {
	var id int64
	l.scan(`SELECT id FROM ledger_accounts WHERE app_id = ? AND kind = 'app_wallet'`, []any{l.e.app}, &id)
	return id
}

// TestChainBuiltForAnExistingLedger empties an app's chain, as a database made before chains
// has none: check names its postings, and the next start chains them once, as they stand, and
// writes go on from there.
func TestChainBuiltForAnExistingLedger(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		l := busyLedger(t, dsn, 7)
		l.exec(`DELETE FROM ledger_chain WHERE app_id = ?`, l.e.app)
		l.exec(`DELETE FROM ledger_chain_heads WHERE app_id = ?`, l.e.app)
		var v *service.LedgerViolation
		if err := l.e.svc.CheckLedger(l.e.ctx, l.e.app); !errors.As(err, &v) || !strings.Contains(v.Error(), "is not in the chain") {
			t.Fatalf("CheckLedger of a ledger without its chain = %v", err)
		}
		l.e.open(t) // payoutd starting on it
		l.e.open(t) // and a second instance: the chain is built once
		if _, err := l.e.svc.CreateTransfer(l.e.ctx, l.e.app, payouts.CreateTransferRequest{UserID: l.e.user.ID, Amount: -100}); err != nil {
			t.Fatal(err)
		}
		l.e.checkLedger(t)
	})
}

// TestChainOfTwoInstances writes one app's ledger from two services on one database at once,
// each with its own writers, and finds one chain holding every posting.
func TestChainOfTwoInstances(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 1_000_000)
		first := e.svc
		e.open(t)
		done := make(chan error, 16)
		for i := range 16 {
			svc := []*service.Service{first, e.svc}[i%2]
			go func() {
				var err error
				for j := 0; j < 10 && err == nil; j++ {
					_, err = svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -1})
				}
				done <- err
			}()
		}
		for range 16 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		e.checkLedger(t)
	})
}
