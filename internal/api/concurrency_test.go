package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// post sends a JSON body with the env's first app's credentials from any goroutine (the
// servicetest helpers stop the test, which only the test's goroutine may do).
func post(env *servicetest.Env, path string, body any) (int, []byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest("POST", env.URL+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(env.ClientID, env.APIKey)
	resp, err := env.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// TestConcurrentTransfers has 50 clients move money both ways between the app and 10 users for
// 5 seconds. Afterwards no wallet is negative, the ledger balances, every wallet holds what
// the accepted transfers say, and the deposits equal the app's money plus the users'.
func TestConcurrentTransfers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("50 clients for 5 s: a load test")
	}
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env := servicetest.Start(t, engine.opts()...)
			creds := env.Credentials()
			const deposited = 500_00
			deposit(t, env, creds, deposited)
			users := make([]payouts.User, 10)
			for i := range users {
				users[i] = createUser(t, env, creds)
			}

			const workers = 50
			deadline := time.Now().Add(5 * time.Second)
			var (
				wg                 sync.WaitGroup
				mu                 sync.Mutex
				held               = make(map[string]int64) // user id -> what accepted transfers gave them
				toUsers, fromUsers atomic.Int64
				refused            atomic.Int64
				failures           []string
			)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Now().Before(deadline) {
						u := users[rand.IntN(len(users))]
						amount := int64(1 + rand.IntN(50_00))
						if rand.IntN(2) == 0 {
							amount = -amount // app -> user
						}
						status, body, err := post(env, "/v2/transfers", map[string]any{"user_id": u.ID, "amount": amount})
						switch {
						case err != nil:
							mu.Lock()
							failures = append(failures, err.Error())
							mu.Unlock()
							return
						case status == http.StatusOK:
							mu.Lock()
							held[u.ID] -= amount
							mu.Unlock()
							if amount < 0 {
								toUsers.Add(1)
							} else {
								fromUsers.Add(1)
							}
						case status == http.StatusUnprocessableEntity && bytes.Contains(body, []byte(payouts.EInsufficientFunds)):
							refused.Add(1)
						default:
							mu.Lock()
							failures = append(failures, fmt.Sprintf("%d %s", status, body))
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			for _, f := range failures {
				t.Errorf("transfer: %s", f)
			}
			if toUsers.Load() == 0 || fromUsers.Load() == 0 {
				t.Fatalf("accepted %d transfers to users and %d from users; the test moved no money both ways",
					toUsers.Load(), fromUsers.Load())
			}
			t.Logf("%d to users, %d from users, %d refused for insufficient funds", toUsers.Load(), fromUsers.Load(), refused.Load())

			var total int64
			for _, u := range users {
				got := getUser(t, env, u.ID).Wallet
				if got.Amount < 0 || got.WithdrawableAmount < 0 {
					t.Errorf("user %s has a negative wallet: %+v", u.ID, got)
				}
				if int64(got.Amount) != held[u.ID] {
					t.Errorf("user %s holds %v, the accepted transfers say %v", u.ID, got.Amount, payouts.Money(held[u.ID]))
				}
				total += int64(got.Amount)
			}
			app := getApp(t, env, creds).Wallet
			if app.Amount < 0 || app.WithdrawableAmount < 0 {
				t.Errorf("the app has a negative wallet: %+v", app)
			}
			if total+int64(app.Amount) != deposited {
				t.Errorf("app %v + users %v = %v, want the %v deposited", app.Amount, payouts.Money(total),
					app.Amount+payouts.Money(total), payouts.Money(deposited))
			}
			env.CheckLedger(t)
		})
	}
}
