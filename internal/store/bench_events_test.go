package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// BenchmarkListEventsOldDay reads the newest 50 events of one day early in an app's 200,000
// events (13 seconds apart, a month), on each engine: through the list, whose creation range
// becomes seq bounds found by bisection (range.go), those two bisections alone, and as the same
// query with the creation conditions alone, which walks every newer event to reach that day.
//
//	go test ./internal/store -run '^$' -bench ListEventsOldDay -benchtime 200x
func BenchmarkListEventsOldDay(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			ctx := context.Background()
			dsn := b.TempDir() + "/bench.db"
			if engine == "postgres" {
				dsn = pgtest.DSN(b)
			}
			st, err := store.Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			appID := newApp(b, st, "bench")
			const total, spacing = 200_000, 13 * time.Second
			for start := 0; start < total; start += 1000 {
				batch := make([]*service.EventRecord, 1000)
				for i := range batch {
					batch[i] = eventAt(appID, start+i, payouts.EventTransferCreated, t0.Add(time.Duration(start+i)*spacing))
				}
				if err := st.InTx(ctx, func(q service.Queries) error { return q.Apply(ctx, &service.Plan{Events: batch}) }); err != nil {
					b.Fatal(err)
				}
			}
			day := t0.AddDate(0, 0, 5) // in the first half of the month
			f := payouts.EventFilter{CreatedFrom: day, CreatedTo: day.AddDate(0, 0, 1)}
			b.Run("seq_bounds", func(b *testing.B) {
				for b.Loop() {
					rows, _, err := st.ListEvents(ctx, appID, payouts.Page{Limit: 50}, f)
					if err != nil || len(rows) != 50 || rows[0].Created.Before(f.CreatedFrom) {
						b.Fatal(len(rows), err)
					}
				}
			})
			// The two seeks of the list's seq bounds alone (range.go), without the list itself.
			b.Run("bounds_only", func(b *testing.B) {
				for b.Loop() {
					_, fromOK, err := store.EventsSeek(st, appID, f.CreatedFrom.Add(-store.CreatedSlack), true)
					if err != nil || !fromOK {
						b.Fatal(err)
					}
					_, toOK, err := store.EventsSeek(st, appID, f.CreatedTo.Add(store.CreatedSlack), false)
					if err != nil || !toOK {
						b.Fatal(err)
					}
				}
			})
			b.Run("created_only", func(b *testing.B) {
				db := st.DB()
				query := db.Rebind(`SELECT seq FROM events WHERE app_id = ? AND created >= ? AND created < ? ORDER BY seq DESC LIMIT 51`)
				for b.Loop() {
					rows, err := db.QueryContext(ctx, query, appID, f.CreatedFrom.UnixMicro(), f.CreatedTo.UnixMicro())
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for rows.Next() {
						n++
					}
					if rows.Close(); rows.Err() != nil || n != 51 {
						b.Fatal(fmt.Sprint(n), rows.Err())
					}
				}
			})
		})
	}
}
