package faulttest

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// TestTwoProcessesOneKilled runs two payoutd processes on one PostgreSQL database, clients
// alternating between them, and SIGKILLs one mid-run with payouts in flight: the survivor
// answers the retries and settles every payout, nothing lost or doubled.
//
// A payout the killed process had leased for its rail call stays its own until the lease
// (railLease, short here) runs out; then the survivor calls the rail again with the same
// idempotency key and settles it once.
func TestTwoProcessesOneKilled(t *testing.T) {
	db := database(t, "postgres")
	// Payouts settle after a second, so the kill below finds some in flight.
	doomed := newDaemon(t, db, time.Second)
	survivor := newDaemon(t, db, time.Second)
	creds := doomed.createApp("Shared")
	doomed.mustStart()
	survivor.mustStart()
	clients := []*client.Client{doomed.client(creds), survivor.client(creds)}
	b := newBank(t, creds, clients, 8)

	start := time.Now()
	inFlight := make(chan int, 1)
	// Kill as soon as a few payouts are in flight, however fast the machine runs the load.
	go func() {
		n := 0
		for deadline := time.Now().Add(20 * time.Second); n < 3 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			list, err := clients[1].ListTransfers(context.Background(), payouts.Page{Limit: 100},
				payouts.TransferFilter{Type: payouts.TransferPayout, Status: payouts.TransferPending})
			if err != nil {
				t.Errorf("list pending payouts: %v", err)
				break
			}
			n = len(list.Data)
		}
		doomed.kill()
		inFlight <- n
	}()
	b.run(context.Background(), 16, 40, 2, nil)
	if n := <-inFlight; n == 0 {
		t.Errorf("no payout was in flight when a process was killed; the test proves nothing")
	} else {
		t.Logf("killed one process with %d or more payouts in flight", n)
	}
	if doomed.kills != 1 {
		t.Fatalf("the doomed process was killed %d times, want once during the load", doomed.kills)
	}
	b.verify(clients[1])
	survivor.kill()
	checkLedger(t, db, creds.AppID)
	b.report(1, 0)
	t.Logf("postgres, two processes: %s", time.Since(start).Round(time.Millisecond))
}
