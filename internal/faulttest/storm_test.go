package faulttest

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// TestDeadlockStorm has 50 clients move money both ways between the app and the same 3 users at
// once, the pattern that deadlocks row locks taken in opposite orders: no client may see any
// error but a legitimate insufficient-funds 422, and the ledger must balance afterwards.
func TestDeadlockStorm(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			d := newDaemon(t, database(t, engine), time.Second)
			creds := d.createApp("Storm")
			d.mustStart()
			c := d.client(creds)
			b := newBank(t, creds, []*client.Client{c}, 3)
			ctx := context.Background()
			b.do(ctx, 0, op{kind: opDeposit, key: uuid.NewString(), amount: 1_000_00})

			start := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			refused := 0
			for w := range 50 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(3, uint64(w)))
					for range 10 {
						o := op{key: uuid.NewString(), userID: b.users[rng.IntN(3)].ID,
							amount: int64(1+rng.IntN(50)) * 100, kind: opToUser}
						if rng.IntN(2) == 0 {
							o.kind = opToApp
						}
						tr, err := b.send(ctx, c, o)
						var apiErr *payouts.Error
						switch {
						case err == nil:
							o.id = tr.ID
							mu.Lock()
							b.acked = append(b.acked, o)
							mu.Unlock()
						case errors.As(err, &apiErr) && apiErr.Code == payouts.EInsufficientFunds && apiErr.Status == 422:
							mu.Lock()
							refused++
							mu.Unlock()
						default:
							t.Errorf("%s of %d: %v", o.kind, o.amount, err)
						}
					}
				})
			}
			wg.Wait()
			t.Logf("%s: %d transfers acknowledged, %d refused for insufficient funds, in %s",
				engine, len(b.acked), refused, time.Since(start).Round(time.Millisecond))
			b.verify(c)
			d.kill()
			checkLedger(t, d.db, creds.AppID)
		})
	}
}
