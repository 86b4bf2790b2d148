package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestListEventsCreatedRange checks the events list's creation range against the brute-force
// filter of every event, over random ranges, on events whose created times are out of seq order
// by up to 50 minutes (within the store's slack of an hour, as concurrent writers leave them),
// among another app's events: the first page and the pages walked through the range both hold
// exactly the events created in it, newest first.
func TestListEventsCreatedRange(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, other := newApp(t, st, "acme"), newApp(t, st, "other")
		rnd := rand.New(rand.NewPCG(27, 1))
		const n = 400
		base := t0
		var all []*service.EventRecord // the app's events, in seq order
		var batch []*service.EventRecord
		for i := range n {
			// Ten minutes apart, each off by up to 25 minutes either way.
			created := base.Add(time.Duration(i)*10*time.Minute + time.Duration(rnd.IntN(51)-25)*time.Minute)
			typ := payouts.EventTransferCreated
			if i%3 == 0 {
				typ = payouts.EventUserCreated
			}
			e := eventAt(appID, 2*i, typ, created)
			all = append(all, e)
			batch = append(batch, e)
			if rnd.IntN(2) == 0 { // the other app's events take seqs in between
				batch = append(batch, eventAt(other, 2*i+1, typ, created))
			}
			if len(batch) >= 50 || i == n-1 {
				if err := st.InTx(ctx, func(q service.Queries) error { return q.InsertEvents(ctx, batch) }); err != nil {
					t.Fatal(err)
				}
				batch = nil
			}
		}
		span := time.Duration(n) * 10 * time.Minute
		instant := func() time.Time {
			return base.Add(time.Duration(rnd.Int64N(int64(span+4*time.Hour))) - 2*time.Hour).Truncate(time.Minute)
		}
		var filters []payouts.EventFilter
		for range 60 {
			from, to := instant(), instant()
			if to.Before(from) {
				from, to = to, from
			}
			f := payouts.EventFilter{CreatedFrom: from, CreatedTo: to.Add(time.Minute)}
			switch rnd.IntN(5) {
			case 0:
				f.CreatedFrom = time.Time{}
			case 1:
				f.CreatedTo = time.Time{}
			case 2:
				f.Type = payouts.EventUserCreated
			}
			filters = append(filters, f)
		}
		for _, f := range filters {
			t.Run(fmt.Sprintf("%s_%s_%s", f.CreatedFrom.Format("0102T1504"), f.CreatedTo.Format("0102T1504"), f.Type), func(t *testing.T) {
				var want []string // newest first
				for _, e := range slices.Backward(all) {
					c := e.Created.Time
					if (f.CreatedFrom.IsZero() || !c.Before(f.CreatedFrom)) && (f.CreatedTo.IsZero() || c.Before(f.CreatedTo)) &&
						(f.Type == "" || e.Type == f.Type) {
						want = append(want, e.ID)
					}
				}
				first, _, err := st.ListEvents(ctx, appID, payouts.Page{Limit: payouts.MaxLimit}, f)
				if err != nil {
					t.Fatal(err)
				}
				if got := eventIDs(first); !slices.Equal(got, want[:min(len(want), payouts.MaxLimit)]) {
					t.Fatalf("first page: %d events %v\nwant %d %v", len(got), got, len(want), want)
				}
				var walked []string
				page := payouts.Page{Limit: 7}
				for {
					rows, more, err := st.ListEvents(ctx, appID, page, f)
					if err != nil {
						t.Fatal(err)
					}
					walked = append(walked, eventIDs(rows)...)
					if !more {
						break
					}
					page.StartingAfter = rows[len(rows)-1].ID
				}
				if !slices.Equal(walked, want) {
					t.Fatalf("pages: %d events %v\nwant %d %v", len(walked), walked, len(want), want)
				}
			})
		}
	})
}

// eventAt is an event of the app numbered n, created at created.
func eventAt(appID string, n int, typ payouts.EventType, created time.Time) *service.EventRecord {
	return &service.EventRecord{Event: payouts.Event{ID: fmt.Sprintf("20000000-0000-4000-8000-%012d", n), Type: typ,
		AppID: appID, ObjectID: fmt.Sprint(n), Data: []byte(`{}`), Created: payouts.NewTime(created)}}
}

func eventIDs(events []service.EventRecord) []string {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return ids
}
