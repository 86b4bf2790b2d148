package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// heldTransfer is a transfer and its posting, numbered n, to write in a write transaction,
// which holds them.
func heldTransfer(appID string, bank, wallet int64, n int) (*service.TransferRecord, *ledger.Posting) {
	id := fmt.Sprintf("30000000-0000-4000-8000-%012d", n)
	t := &service.TransferRecord{AppID: appID, Updated: t0, Transfer: payouts.Transfer{ID: id, Created: payouts.NewTime(t0),
		Type: payouts.TransferRefill, Amount: payouts.Money(n + 1), Status: payouts.TransferCompleted}}
	p := &ledger.Posting{TransferID: id, Debit: bank, Credit: wallet, Amount: int64(n + 1), State: ledger.Posted,
		Type: string(payouts.TransactionRefill), AppID: appID, Created: t0}
	return t, p
}

// TestHeldRows writes transfers, postings and yearly payments held in one write transaction,
// more than one multi-row statement holds, with a read of a held table halfway: each is stored
// once, with the seq and id it was given, and each yearly total as it was answered.
func TestHeldRows(t *testing.T) {
	const n = 450
	payee := func(i int) string { return userID(i % 3) }
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		want := map[string]payouts.Money{payee(0): 1000}
		if err := st.InTx(ctx, func(q service.Queries) error {
			_, err := addPayment(ctx, q, appID, payee(0), 1000)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		transfers, postings := make([]*service.TransferRecord, n), make([]*ledger.Posting, n)
		err := st.InTx(ctx, func(q service.Queries) error {
			for i := range n {
				transfers[i], postings[i] = heldTransfer(appID, bank.ID, wallet.ID, i)
				if err := q.CreateTransfer(ctx, transfers[i]); err != nil {
					return err
				}
				if err := post(ctx, q, postings[i]); err != nil {
					return err
				}
				total, err := addPayment(ctx, q, appID, payee(i), payouts.Money(i+1))
				if err != nil {
					return err
				}
				want[payee(i)] += payouts.Money(i + 1)
				if total != want[payee(i)] {
					return fmt.Errorf("item %d: yearly total %d, want %d", i, total, want[payee(i)])
				}
				if i == n/2 { // a read of a held table sees what is held
					if _, err := q.GetTransfer(ctx, appID, transfers[0].ID); err != nil {
						return fmt.Errorf("read of a held transfer: %w", err)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Numbered by the transaction (from the sequence, a block at a time, on PostgreSQL), the
		// postings' ids still rise in the order they were made.
		for i := 1; i < n; i++ {
			if postings[i].ID <= postings[i-1].ID {
				t.Fatalf("posting %d was given id %d after %d", i, postings[i].ID, postings[i-1].ID)
			}
		}
		for user, total := range want {
			if got, err := st.YearlyPayments(ctx, appID, user, 2026); err != nil || got != total {
				t.Errorf("yearly payments of %s: %d, %v; want %d", user, got, err, total)
			}
		}
		for i := range n {
			got, err := st.GetTransfer(ctx, appID, transfers[i].ID)
			if err != nil || got.Seq != transfers[i].Seq || got.Amount != transfers[i].Amount {
				t.Fatalf("transfer %d: stored %+v, %v; given seq %d", i, got, err, transfers[i].Seq)
			}
			history, err := st.TransferHistory(ctx, appID, got.ID)
			if err != nil || len(history) != 1 || history[0].Status != payouts.TransferCompleted {
				t.Fatalf("history of transfer %d: %+v, %v", i, history, err)
			}
			lines, err := st.PostingsOfTransfers(ctx, appID, []string{got.ID})
			if err != nil || len(lines) != 1 || lines[0].ID != postings[i].ID || lines[0].Amount != postings[i].Amount {
				t.Fatalf("postings of transfer %d: %+v, %v; given id %d", i, lines, err, postings[i].ID)
			}
		}
	})
}

// TestHeldRowsWrittenByTable: a statement of a job writes first the held rows of the tables it
// touches, and only those: a read of transfers leaves the postings and events held, to go with
// the batch's next ones, and a read of events then finds the event held. Everything is stored
// once at the commit.
func TestHeldRowsWrittenByTable(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		tr, p := heldTransfer(appID, bank.ID, wallet.ID, 1)
		event := &service.EventRecord{Event: payouts.Event{ID: "40000000-0000-4000-8000-000000000001", AppID: appID,
			Type: payouts.EventTransferCreated, ObjectID: tr.ID, Data: []byte(`{}`), Created: payouts.NewTime(t0)}}
		err := st.InTx(ctx, func(q service.Queries) error {
			if err := q.CreateTransfer(ctx, tr); err != nil {
				return err
			}
			if err := post(ctx, q, p); err != nil {
				return err
			}
			if err := q.Apply(ctx, &service.Plan{Events: []*service.EventRecord{event}}); err != nil {
				return err
			}
			steps := []struct {
				name string
				read func() error
				want []int // unwritten: transfers, postings, payments, events, deliveries
			}{
				{"held", func() error { return nil }, []int{1, 1, 0, 1, 0}},
				{"a read of transfers", func() error { _, err := q.GetTransfer(ctx, appID, tr.ID); return err }, []int{0, 1, 0, 1, 0}},
				{"a read of events", func() error { _, err := q.GetEvent(ctx, appID, event.ID); return err }, []int{0, 1, 0, 0, 0}},
			}
			for _, step := range steps {
				if err := step.read(); err != nil {
					return fmt.Errorf("%s: %w", step.name, err)
				}
				if got := store.HeldUnwritten(q); !slices.Equal(got, step.want) {
					t.Errorf("after %s, rows held unwritten %v, want %v", step.name, got, step.want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.GetTransfer(ctx, appID, tr.ID); err != nil {
			t.Fatalf("transfer not stored: %v", err)
		}
		if ps, err := st.PostingsOfTransfers(ctx, appID, []string{tr.ID}); err != nil || len(ps) != 1 || ps[0].ID != p.ID {
			t.Fatalf("postings stored %+v (%v), want the one numbered %d", ps, err, p.ID)
		}
		if e, err := st.GetEvent(ctx, appID, event.ID); err != nil || e.Seq != event.Seq {
			t.Fatalf("event stored %+v (%v), want seq %d", e, err, event.Seq)
		}
	})
}

// TestHeldRowsWrittenByAFailedJob: in a shared batch, a job that reads a held table writes the
// rows the jobs before it hold; when it then fails, having changed nothing of its own, those rows
// stay written, and the batch commits without running a job again or writing a row twice, each
// with the seq it was given.
func TestHeldRowsWrittenByAFailedJob(t *testing.T) {
	const jobs = 24 // so that one of PostgreSQL's two writers' batches has several
	reader := func(i int) bool { return i%2 == 1 }
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		transfers := make([]*service.TransferRecord, jobs)
		runs := inSharedBatches(t, st, jobs, reader, func(i int) (service.Intent, func(q service.Queries) error) {
			return service.Intent{}, func(q service.Queries) error {
				if !reader(i) {
					transfers[i], _ = heldTransfer(appID, bank.ID, wallet.ID, i)
					return q.CreateTransfer(ctx, transfers[i])
				}
				_, err := q.GetTransfer(ctx, appID, "30000000-0000-4000-8000-999999999999")
				if !errors.Is(err, service.ErrNoRecord) {
					return fmt.Errorf("read of a transfer never made: %v", err)
				}
				return nil
			}
		})
		after := 0 // readers that ran after a writer in their batch
		for n, r := range runs {
			if r.failed && slices.ContainsFunc(runs[:n], func(w jobRun) bool { return w.batch == r.batch && !w.failed }) {
				after++
			}
		}
		if after == 0 {
			t.Error("no reader ran after a writer in its batch")
		}
		if len(runs) != jobs {
			t.Errorf("%d runs of %d jobs: a batch ran again", len(runs), jobs)
		}
		for i, tr := range transfers {
			if reader(i) {
				continue
			}
			got, err := st.GetTransfer(ctx, appID, tr.ID)
			if err != nil || got.Seq != tr.Seq {
				t.Errorf("transfer %d after the commit: %+v, %v; given seq %d", i, got, err, tr.Seq)
			}
		}
	})
}

// TestTransferRowKeepsEveryField: a transfer made, held in a write transaction or written at
// once, reads back as it was made, every field of its record set to a value of its own: its
// writer misses no field and puts none in another's column.
func TestTransferRowKeepsEveryField(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, _, _ := fundedWallet(t, st, 0)
		user := newUser(t, st, appID, 7, "every@example.com").ID
		made := func(n int) *service.TransferRecord {
			link := fmt.Sprintf("50000000-0000-4000-8000-%012d", n)
			return &service.TransferRecord{AppID: appID, IdempotencyKey: fmt.Sprint("key-", n), RailState: service.RailState("submitted"),
				SettleAt: t0.Add(time.Hour), LeaseUntil: t0.Add(2 * time.Hour), Attempts: 3, FeeParty: payouts.FeeParty("user"),
				Fund: true, Updated: t0.Add(time.Minute), RailReference: fmt.Sprint("ref-", n),
				Transfer: payouts.Transfer{ID: fmt.Sprintf("30000000-0000-4000-8000-%012d", n), Created: payouts.NewTime(t0),
					UserID: &user, Status: payouts.TransferPending, Type: payouts.TransferPayout, Amount: payouts.Money(-100 - n),
					ExternalData: payouts.ExternalData{Platform: payouts.Platform("paypal"), AccountID: "acct", ExternalID: "ext"},
					PayoutLinkID: &link, Metadata: payouts.Metadata(`{"n":1}`), FailureReason: "why", TaxExempt: true}}
		}
		for _, tc := range []struct {
			name   string
			create func(*service.TransferRecord) error
		}{
			{"held in a write transaction", func(tr *service.TransferRecord) error {
				return st.InTx(ctx, func(q service.Queries) error { return q.CreateTransfer(ctx, tr) })
			}},
			{"written at once", func(tr *service.TransferRecord) error { return st.CreateTransfer(ctx, tr) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tr := made(len(tc.name))
				want := *tr
				if err := tc.create(tr); err != nil {
					t.Fatal(err)
				}
				want.Seq = tr.Seq
				got, err := st.GetTransfer(ctx, appID, tr.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(*got, want) {
					t.Errorf("stored\n%+v\nmade\n%+v", *got, want)
				}
			})
		}
	})
}
