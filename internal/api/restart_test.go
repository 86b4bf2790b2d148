package api_test

import (
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// TestRestartSettlesOnce stops the service with payouts on the rail, and starts it again on the
// same database, twice over, as two instances behind a load balancer: their background workers
// race to settle what came due while no service ran, and every payout ends exactly once, with
// its ledger lines once and the wallets right to the cent.
//
// servicetest stops a server when the test that started it ends, so the first server lives in a
// subtest: when t.Run returns, that server has stopped serving, its worker has stopped, and its
// database is closed. The servers after it are started with the same DSN and clock, and reach
// the first app with its credentials.
func TestRestartSettlesOnce(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"SQLite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "disburse.db") }},
		{"PostgreSQL", func(t *testing.T) string { return pgtest.DSN(t) }},
	} {
		t.Run(engine.name, func(t *testing.T) {
			dsn := engine.dsn(t)
			clock := testclock.New(start)
			var (
				creds          payouts.Credentials
				payee, refused payouts.User
				want           = map[string][]string{} // transfer id -> its final ledger lines
				failing        string                  // the id of the payout the rail fails
			)
			ok := t.Run("before the stop", func(t *testing.T) {
				// This server's worker runs, but the clock stands still: nothing comes due.
				env := servicetest.Start(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock))
				creds = env.Credentials()
				deposit(t, env, creds, 1_000_00)
				payee, refused = createUser(t, env, creds), createUser(t, env, creds)
				addMethod(t, env, creds, payee.ID, paypalBody)
				ach := addMethod(t, env, creds, payee.ID, achBody("12345678"))
				addMethod(t, env, creds, refused.ID, slowFailPayPalBody)
				transfer(t, env, creds, payee.ID, -15_00)

				for _, amount := range []int64{10_00, 20_00, 30_00, 40_00} {
					tr := createPayout(t, env, map[string]any{"user_id": payee.ID, "amount": amount, "platform": "paypal", "fund": true})
					want[tr.ID] = lines(payouts.Transfer{Transactions: []payouts.Transaction{
						{Type: "balance", Amount: payouts.Money(amount), Status: "posted"},
						{Type: "fee", Amount: 25, Status: "posted"},
						{Type: "payout", Amount: payouts.Money(amount), Status: "posted"},
					}})
				}
				tr := createPayout(t, env, map[string]any{"user_id": payee.ID, "amount": 15_00, "platform": "ach", "account_id": ach.ID})
				want[tr.ID] = []string{"payout 1500 posted"}
				tr = createPayout(t, env, map[string]any{"user_id": refused.ID, "amount": 25_00, "platform": "paypal", "fund": true})
				want[tr.ID] = []string{"balance 2500 posted", "balance 2500 posted", "fee 25 voided", "payout 2500 voided"}
				failing = tr.ID

				for id := range want {
					if got := getTransfer(t, env, id); got.Status != payouts.TransferPending {
						t.Fatalf("payout %s before the stop, want pending", got.Status)
					}
				}
			})
			if !ok {
				t.FailNow()
			}

			clock.Advance(time.Minute) // every payout comes due while no service runs
			fast := servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = 10 * time.Millisecond })
			env := servicetest.Start(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock), fast)
			servicetest.Start(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock), fast)

			// Wait for the workers, with a bound on the wait so that a worker that never
			// settles fails the test instead of hanging it.
			pending := func() []payouts.Transfer {
				var l payouts.List[payouts.Transfer]
				call{method: "GET", path: "/v2/transfers?type=payout&status=pending", as: &creds, status: http.StatusOK}.do(t, env).Decode(t, &l)
				return l.Data
			}
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			deadline := time.After(time.Minute)
			for len(pending()) > 0 {
				select {
				case <-tick.C:
				case <-deadline:
					t.Fatalf("payouts still pending a minute after the restart: %+v", pending())
				}
			}

			for id, wantLines := range want {
				var tr payouts.Transfer
				call{method: "GET", path: "/v2/transfers/" + id, as: &creds, status: http.StatusOK}.do(t, env).Decode(t, &tr)
				status := payouts.TransferCompleted
				if id == failing {
					status = payouts.TransferFailed
				}
				var history []payouts.TransferStatus
				for _, c := range tr.StatusHistory {
					history = append(history, c.Status)
				}
				if tr.Status != status || !slices.Equal(history, []payouts.TransferStatus{payouts.TransferPending, status}) {
					t.Errorf("payout %s: %s with history %v, want %s once", id, tr.Status, history, status)
				}
				if got := lines(tr); !slices.Equal(got, wantLines) {
					t.Errorf("payout %s: transactions %v, want %v", id, got, wantLines)
				}
			}
			// $1,000 deposited, $15 to the payee, four funded payouts of $100 in all with four
			// 25-cent fees; the refused payout's funding came back.
			if got, want := balancesOf(t, env, creds, payee.ID), (balances{884_00, 884_00, 0, 0}); got != want {
				t.Errorf("payee: %v, want %v", got, want)
			}
			if got, want := balancesOf(t, env, creds, refused.ID), (balances{884_00, 884_00, 0, 0}); got != want {
				t.Errorf("refused payee: %v, want %v", got, want)
			}
			if n := settle(t, env, time.Hour); n != 0 {
				t.Errorf("%d payouts settled again an hour later", n)
			}
			env.CheckLedger(t)
		})
	}
}
