package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestInsertEvents checks that events written together, across several statements, get seqs in
// the order given (an object's events are delivered in seq order), each matched to its event.
func TestInsertEvents(t *testing.T) {
	for _, n := range []int{1, 2, 450} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			engines(t, func(t *testing.T, st *store.Store) {
				ctx := context.Background()
				appID := newApp(t, st, "acme")
				events := make([]*service.EventRecord, n)
				for i := range events {
					events[i] = &service.EventRecord{Event: payouts.Event{ID: fmt.Sprintf("20000000-0000-4000-8000-%012d", i),
						Type: payouts.EventTransferCreated, AppID: appID, ObjectID: fmt.Sprint(i % 7),
						Data: []byte(fmt.Sprintf(`{"n":%d}`, i)), Created: payouts.NewTime(t0)}}
				}
				err := st.InTx(ctx, func(q service.Queries) error { return q.Apply(ctx, &service.Plan{Events: events}) })
				if err != nil {
					t.Fatal(err)
				}
				for i, e := range events {
					if i > 0 && e.Seq <= events[i-1].Seq {
						t.Fatalf("event %d has seq %d after %d", i, e.Seq, events[i-1].Seq)
					}
					got, err := st.GetEvent(ctx, appID, e.ID)
					if err != nil || got.Seq != e.Seq || string(got.Data) != string(e.Data) {
						t.Fatalf("event %d: stored %+v, %v; set seq %d", i, got, err, e.Seq)
					}
				}
			})
		})
	}
}
