package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// BenchmarkWebhookBacklog writes b.N balance transfers through the API from 8 clients while the
// service's webhook worker delivers their events (created and completed: two each) to a local
// receiver. It reports the write rate, the largest backlog of undelivered events seen (sampled
// every 10 ms) and the backlog when the writes stopped, and how long the backlog took to drain once the writes stopped: a worker that
// keeps up holds the backlog near one batch whatever b.N is.
func BenchmarkWebhookBacklog(b *testing.B) {
	env := servicetest.Start(b, servicetest.WithConfig(func(c *payoutd.Config) { c.WorkerInterval = 100 * time.Millisecond }))
	ctx := context.Background()
	var delivered atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { delivered.Add(1) }))
	defer rcv.Close()
	if _, err := env.Service.CreateWebhookEndpoint(ctx, env.AppID, payouts.CreateWebhookEndpointRequest{URL: rcv.URL}); err != nil {
		b.Fatal(err)
	}
	if _, err := env.Service.Deposit(ctx, env.AppID, env.AppID, payouts.DepositRequest{Amount: 1_000_000_00}); err != nil {
		b.Fatal(err)
	}
	const writers = 8
	users := make([]string, writers)
	for i := range users {
		u, err := env.Service.CreateUser(ctx, env.AppID, payouts.CreateUserRequest{FirstName: "Load", LastName: "Writer",
			Email: fmt.Sprintf("load%d@example.com", i), CountryCode: "1", PhoneNumber: fmt.Sprintf("20255501%02d", i)})
		if err != nil {
			b.Fatal(err)
		}
		users[i] = u.ID
	}

	var maxBacklog atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
			if n, err := env.Service.WebhookBacklog(ctx); err == nil && int64(n) > maxBacklog.Load() {
				maxBacklog.Store(int64(n))
			}
		}
	}()

	b.ResetTimer()
	start := time.Now()
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				status, _, err := post(env, "/v2/transfers", map[string]any{"user_id": users[w], "amount": -1})
				if err != nil || status != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	wrote := time.Since(start)
	b.StopTimer()
	atEnd, err := env.Service.WebhookBacklog(ctx)
	if err != nil {
		b.Fatal(err)
	}
	drainStart := time.Now()
	for {
		n, err := env.Service.WebhookBacklog(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	drained := time.Since(drainStart)
	close(stopSampling)
	<-sampled
	if failed.Load() > 0 {
		b.Fatalf("%d transfers failed", failed.Load())
	}
	b.ReportMetric(float64(b.N)/wrote.Seconds(), "transfers/s")
	b.ReportMetric(float64(maxBacklog.Load()), "max-backlog")
	b.ReportMetric(float64(atEnd), "backlog-at-end")
	b.ReportMetric(float64(drained.Milliseconds()), "drain-ms")
	b.ReportMetric(float64(delivered.Load()), "delivered")
}
