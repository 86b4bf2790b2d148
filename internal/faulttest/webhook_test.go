package faulttest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// TestWebhooksUnderKills writes deposits while payoutd is SIGKILLed and restarted, with a slow
// receiver so deliveries are pending (and some in flight) at every kill, then checks that every
// event the service committed reaches the receiver, signed, at least once.
func TestWebhooksUnderKills(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			d := newDaemon(t, database(t, engine), 150*time.Millisecond)
			creds := d.createApp("Hooks")
			d.mustStart()
			c := d.client(creds)
			ctx := context.Background()

			var mu sync.Mutex
			got := map[string]int{}
			var secret string
			var bad []error
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(5 * time.Millisecond) // slow enough that deliveries queue up
				body, _ := io.ReadAll(r.Body)
				var e payouts.Event
				mu.Lock()
				defer mu.Unlock()
				if err := client.VerifyWebhook(secret, r.Header, body); err != nil {
					bad = append(bad, err)
				} else if json.Unmarshal(body, &e) == nil {
					got[e.ID]++
				}
			}))
			defer rcv.Close()
			// Events written before the endpoint existed (the app's own, as it was made) are not
			// its to deliver.
			before := map[string]bool{}
			for e, err := range c.AllEvents(ctx, payouts.EventFilter{}) {
				if err != nil {
					t.Fatal(err)
				}
				before[e.ID] = true
			}
			ep, err := c.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: rcv.URL})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			secret = ep.Secret
			mu.Unlock()

			for round := range 4 {
				for range 25 {
					// A deposit cut off by a kill may or may not have committed; the events list
					// below says which did.
					c.Deposit(ctx, creds.AppID, payouts.DepositRequest{Amount: 1_00})
				}
				d.kill()
				if err := d.start(); err != nil {
					t.Fatalf("restart %d: %v", round, err)
				}
			}

			var want []string
			for e, err := range c.AllEvents(ctx, payouts.EventFilter{}) {
				if err != nil {
					t.Fatal(err)
				}
				if !before[e.ID] {
					want = append(want, e.ID)
				}
			}
			if len(want) < 100 {
				t.Fatalf("%d events committed, want at least 100", len(want))
			}
			// Leases of the killed processes run out after railLease; the bound only keeps a lost
			// delivery from hanging the test.
			deadline := time.Now().Add(2 * time.Minute)
			missing := want
			for len(missing) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				mu.Lock()
				missing = missing[:0:0]
				for _, id := range want {
					if got[id] == 0 {
						missing = append(missing, id)
					}
				}
				mu.Unlock()
			}
			mu.Lock()
			defer mu.Unlock()
			if len(missing) > 0 {
				t.Errorf("%d of %d events never arrived, such as %s", len(missing), len(want), missing[0])
			}
			if len(bad) > 0 {
				t.Errorf("%d deliveries did not verify, such as: %v", len(bad), bad[0])
			}
			repeats := 0
			for _, n := range got {
				repeats += n - 1
			}
			t.Logf("%s: %d events, all delivered; %d repeats after %d kills", engine, len(want), repeats, d.kills)
		})
	}
}
