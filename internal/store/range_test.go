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

// rangeList is a list with a creation range, as the property test drives it: add writes the
// app's row number n, created at created, of the list's second kind when other; list reads a
// page of the rows of r (of the second kind only when other), as ids.
type rangeList struct {
	name string
	add  func(t *testing.T, st *store.Store, appID string, n int, created time.Time, other bool) string
	list func(st *store.Store, appID string, page payouts.Page, r payouts.Range, other bool) ([]string, bool, error)
}

var rangeLists = []rangeList{
	{"events", func(t *testing.T, st *store.Store, appID string, n int, created time.Time, other bool) string {
		t.Helper()
		e := eventAt(appID, n, payouts.EventTransferCreated, created)
		if other {
			e.Type = payouts.EventUserCreated
		}
		ctx := context.Background()
		if err := st.InTx(ctx, func(q service.Queries) error { return q.Apply(ctx, &service.Plan{Events: []*service.EventRecord{e}}) }); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}, func(st *store.Store, appID string, page payouts.Page, r payouts.Range, other bool) ([]string, bool, error) {
		f := payouts.EventFilter{CreatedFrom: r.CreatedFrom, CreatedTo: r.CreatedTo}
		if other {
			f.Type = payouts.EventUserCreated
		}
		rows, more, err := st.ListEvents(context.Background(), appID, page, f)
		return eventIDs(rows), more, err
	}},
	{"transfers", func(t *testing.T, st *store.Store, appID string, n int, created time.Time, other bool) string {
		t.Helper()
		tr := &service.TransferRecord{AppID: appID, Updated: created, Transfer: payouts.Transfer{ID: fmt.Sprintf("30000000-0000-4000-8000-%012d", n),
			Type: payouts.TransferBalance, Amount: 100, Status: payouts.TransferCompleted, Created: payouts.NewTime(created)}}
		if other {
			tr.Type = payouts.TransferRefill
		}
		if err := st.CreateTransfer(context.Background(), tr); err != nil {
			t.Fatal(err)
		}
		return tr.ID
	}, func(st *store.Store, appID string, page payouts.Page, r payouts.Range, other bool) ([]string, bool, error) {
		f := payouts.TransferFilter{Range: r}
		if other {
			f.Type = payouts.TransferRefill
		}
		rows, more, err := st.ListTransfers(context.Background(), appID, page, f)
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		return ids, more, err
	}},
}

// TestListCreatedRange checks the creation range of the events list (seq bounds by bisection)
// and of the transfers list (by its created index) against the brute-force filter of every row,
// over random ranges, on rows whose created times are out of key order by up to 50 minutes
// (within the store's slack of an hour, as concurrent writers leave them), with quiet hours
// between, among another app's rows: the first page and the pages walked through the range both hold exactly the rows
// created in it, newest first.
func TestListCreatedRange(t *testing.T) {
	for _, rl := range rangeLists {
		t.Run(rl.name, func(t *testing.T) {
			engines(t, func(t *testing.T, st *store.Store) {
				appID, otherApp := newApp(t, st, "acme"), newApp(t, st, "other")
				rnd := rand.New(rand.NewPCG(27, 1))
				type row struct {
					id      string
					created time.Time
					other   bool
				}
				const n = 250
				var all []row // the app's rows, in key order
				at := t0
				for i := range n {
					// Mostly ten minutes apart, now and then after a quiet three hours (a range
					// starting in the quiet needs its bound from before it), each off by up to
					// 25 minutes either way.
					at = at.Add(10 * time.Minute)
					if rnd.IntN(15) == 0 {
						at = at.Add(3 * time.Hour)
					}
					created := at.Add(time.Duration(rnd.IntN(51)-25) * time.Minute)
					other := i%3 == 0
					all = append(all, row{rl.add(t, st, appID, 2*i, created, other), created, other})
					if rnd.IntN(2) == 0 { // the other app's rows take keys in between
						rl.add(t, st, otherApp, 2*i+1, created, other)
					}
				}
				span := at.Sub(t0)
				instant := func() time.Time {
					return t0.Add(time.Duration(rnd.Int64N(int64(span+4*time.Hour))) - 2*time.Hour).Truncate(time.Minute)
				}
				for range 50 {
					from, to := instant(), instant()
					if to.Before(from) {
						from, to = to, from
					}
					r, other := payouts.Range{CreatedFrom: from, CreatedTo: to.Add(time.Minute)}, false
					switch rnd.IntN(5) {
					case 0:
						r.CreatedFrom = time.Time{}
					case 1:
						r.CreatedTo = time.Time{}
					case 2:
						other = true
					}
					t.Run(fmt.Sprintf("%s_%s_%v", r.CreatedFrom.Format("0102T1504"), r.CreatedTo.Format("0102T1504"), other), func(t *testing.T) {
						var want []string // newest first
						for _, row := range slices.Backward(all) {
							c := row.created
							if (r.CreatedFrom.IsZero() || !c.Before(r.CreatedFrom)) && (r.CreatedTo.IsZero() || c.Before(r.CreatedTo)) &&
								(!other || row.other) {
								want = append(want, row.id)
							}
						}
						first, _, err := rl.list(st, appID, payouts.Page{Limit: payouts.MaxLimit}, r, other)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(first, want[:min(len(want), payouts.MaxLimit)]) {
							t.Fatalf("first page: %d rows %v\nwant %d %v", len(first), first, len(want), want)
						}
						var walked []string
						page := payouts.Page{Limit: 9}
						for {
							ids, more, err := rl.list(st, appID, page, r, other)
							if err != nil {
								t.Fatal(err)
							}
							walked = append(walked, ids...)
							if !more {
								break
							}
							page.StartingAfter = ids[len(ids)-1]
						}
						if !slices.Equal(walked, want) {
							t.Fatalf("pages: %d rows %v\nwant %d %v", len(walked), walked, len(want), want)
						}
					})
				}
			})
		})
	}
}

// TestEventsSeek checks the events list's seek of a bound, the bisection of the app's seqs, where
// created grows with seq (so that the nearest row on each side is the one to find) and the other
// app's rows, between the app's in seq order, were created in the opposite order: the row found
// on each side of an instant, at its edges and beyond them, and none for an app without events.
func TestEventsSeek(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		appID, otherApp, emptyApp := newApp(t, st, "acme"), newApp(t, st, "other"), newApp(t, st, "empty")
		const n = 20
		var seqs [n]int64
		var created [n]time.Time
		at := t0
		for i := range n {
			at = at.Add(10 * time.Minute)
			if i == 10 {
				at = at.Add(3 * time.Hour) // quiet hours before the app's row 10
			}
			e, other := eventAt(appID, 2*i, payouts.EventTransferCreated, at), eventAt(otherApp, 2*i+1, payouts.EventTransferCreated, t0.Add(time.Duration(n-i)*time.Hour))
			ctx := context.Background()
			if err := st.InTx(ctx, func(q service.Queries) error {
				return q.Apply(ctx, &service.Plan{Events: []*service.EventRecord{e, other}})
			}); err != nil {
				t.Fatal(err)
			}
			seqs[i], created[i] = e.Seq, at
		}
		const none = -1
		for _, tc := range []struct {
			name   string
			app    string
			at     time.Time
			before bool
			want   int // the app's row found, or none
		}{
			{"before, between rows", appID, created[4].Add(5 * time.Minute), true, 4},
			{"after, between rows", appID, created[4].Add(5 * time.Minute), false, 5},
			{"before, at a row", appID, created[4], true, 3},
			{"after, at a row", appID, created[4], false, 4},
			{"before, in quiet hours", appID, created[9].Add(time.Hour), true, 9},
			{"after, in quiet hours", appID, created[9].Add(time.Hour), false, 10},
			{"before, before the first row", appID, created[0].Add(-time.Minute), true, none},
			{"after, before the first row", appID, created[0].Add(-time.Minute), false, 0},
			{"before, after the last row", appID, created[n-1].Add(time.Minute), true, n - 1},
			{"after, after the last row", appID, created[n-1].Add(time.Minute), false, none},
			{"before, an app without events", emptyApp, created[4], true, none},
			{"after, an app without events", emptyApp, created[4], false, none},
		} {
			t.Run(tc.name, func(t *testing.T) {
				seq, ok, err := store.EventsSeek(st, tc.app, tc.at, tc.before)
				if err != nil {
					t.Fatal(err)
				}
				wantSeq, wantOK := int64(0), tc.want != none
				if wantOK {
					wantSeq = seqs[tc.want]
				}
				if seq != wantSeq || ok != wantOK {
					t.Errorf("found seq %d (%v), want %d (%v)", seq, ok, wantSeq, wantOK)
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
