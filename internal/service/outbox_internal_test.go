package service

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// postQueries takes a transfer and a movement as a store would, numbering new postings.
type postQueries struct {
	Queries // nil: the test calls nothing else
	next    int64
}

func (q *postQueries) CreateTransfer(context.Context, *TransferRecord) error { return nil }

func (q *postQueries) Post(_ context.Context, m ledger.Movement) error {
	for _, p := range m.Made() {
		q.next++
		p.ID = q.next
	}
	return nil
}

// TestRecorderRendersFreshTransfersAsWritten: a transfer created in the transaction is rendered
// for its events as written, with the postings made with it (posted before the transfer was
// written, as a balance transfer does, or after), until a movement settles one of its postings;
// then it is read back (asWritten says nil), whether or not its status changes.
func TestRecorderRendersFreshTransfersAsWritten(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	noGuard := func(int64) bool { return false }
	tests := []struct {
		name        string
		postedFirst bool
		settle      bool
		wantFresh   bool
	}{
		{"postings made after it", false, false, true},
		{"postings made before it", true, false, true},
		{"a posting of it settled", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{Queries: &postQueries{}}
			tr := &TransferRecord{AppID: "app", Updated: at, Transfer: payouts.Transfer{ID: "t1",
				Created: payouts.NewTime(at), Type: payouts.TransferPayout, Amount: 5, Status: payouts.TransferCreated}}
			create := func() {
				if err := r.CreateTransfer(ctx, tr); err != nil {
					t.Fatal(err)
				}
			}
			if !tt.postedFirst {
				create()
			}
			reserve := &ledger.Posting{TransferID: "t1", Debit: 1, Credit: 2, Amount: 5}
			m, err := ledger.NewMovement([]ledger.Change{{Op: ledger.OpReserve, Posting: reserve}}, at, noGuard)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Post(ctx, m); err != nil {
				t.Fatal(err)
			}
			if tt.postedFirst {
				create()
			}
			if tt.settle {
				commit := *reserve
				m, err := ledger.NewMovement([]ledger.Change{{Op: ledger.OpCommit, Posting: &commit}}, at, noGuard)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Post(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			got := r.asWritten(tr.Transfer)
			if (got != nil) != tt.wantFresh {
				t.Fatalf("rendered as written: %v, want %v", got != nil, tt.wantFresh)
			}
			if got != nil && (len(got.Transactions) != 1 || got.Transactions[0].ID != reserve.ID) {
				t.Errorf("lines %+v, want the reservation, numbered %d", got.Transactions, reserve.ID)
			}
		})
	}
}
