package faulttest

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/client"
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
			b.strict = true
			var wg sync.WaitGroup
			for w := range 50 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(3, uint64(w)))
					for range 10 {
						o := op{key: uuid.NewString(), userID: b.users[rng.IntN(3)].ID,
							amount: int64(1+rng.IntN(50)) * 100, kind: opToUser}
						if rng.IntN(2) == 0 {
							o.kind = opToApp
						}
						b.do(ctx, 0, o)
					}
				})
			}
			wg.Wait()
			for _, f := range b.failures {
				t.Error(f)
			}
			t.Logf("%s: %d transfers acknowledged, %d refused for insufficient funds, in %s",
				engine, len(b.acked), b.refused, time.Since(start).Round(time.Millisecond))
			b.verify(c)
			d.kill()
			checkLedger(t, d.db, creds.AppID)
		})
	}
}
