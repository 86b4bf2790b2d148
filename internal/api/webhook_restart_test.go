package api_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// TestWebhooksSurviveARestart stops the service with every delivery pending, some of them
// leased by a worker that died mid-send, and starts it again on the same database: every event
// reaches the receiver at least once.
func TestWebhooksSurviveARestart(t *testing.T) {
	t.Parallel()
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		clock := testclock.New(start)
		noWorker := servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = -1 })
		rcv := newReceiver(t, nil)
		var events []string
		ok := t.Run("before the stop", func(t *testing.T) {
			env := servicetest.Start(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock), noWorker)
			ctx := context.Background()
			if _, err := newClient(t, env).CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: rcv.srv.URL + "/in"}); err != nil {
				t.Fatal(err)
			}
			creds := env.Credentials()
			deposit(t, env, creds, 100_00)
			for range 3 {
				transfer(t, env, creds, createUser(t, env, creds).ID, -1_00)
			}
			list, err := env.Service.ListEvents(ctx, env.AppID, payouts.Page{Limit: 100}, payouts.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range list.Data {
				events = append(events, e.ID)
			}
			// A worker leases some deliveries, then dies before sending them.
			err = env.Store.InTx(ctx, func(q service.Queries) error {
				_, err := q.ClaimDueWebhookDeliveries(ctx, clock.Now(), clock.Now().Add(time.Minute), 4)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		if !ok {
			return
		}
		if len(events) < 9 || len(rcv.at("/in")) != 0 {
			t.Fatalf("%d events written, %d delivered before the stop; want at least 9 and none", len(events), len(rcv.at("/in")))
		}
		env := servicetest.Start(t, servicetest.WithDSN(dsn), servicetest.WithClock(clock), noWorker)
		deliverAll(t, env, 10)
		arrived := map[string]bool{}
		for _, g := range rcv.at("/in") {
			var e payouts.Event
			if err := json.Unmarshal(g.body, &e); err != nil {
				t.Fatal(err)
			}
			arrived[e.ID] = true
		}
		for _, id := range events {
			if !arrived[id] {
				t.Errorf("event %s never arrived", id)
			}
		}
	})
}
