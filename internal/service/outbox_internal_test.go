package service

import (
	"context"
	"fmt"
	"slices"
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

// settleQueries holds one payout's two pending postings, counting the reads of them.
type settleQueries struct {
	postQueries
	postings []ledger.Posting
	reads    int
}

func (q *settleQueries) PostingsOfTransfers(_ context.Context, _ string, ids []string) ([]ledger.Posting, error) {
	q.reads++
	return slices.Clone(q.postings), nil
}

func (q *settleQueries) UpdateTransfer(context.Context, *TransferRecord, payouts.TransferStatus) error {
	return nil
}

func (q *settleQueries) AppWalletID(context.Context, string) (int64, error) { return 1, nil }

func (q *settleQueries) TransferHistories(_ context.Context, _ string, ids []string) (map[string][]payouts.StatusChange, error) {
	return map[string][]payouts.StatusChange{ids[0]: {{Status: payouts.TransferPending}, {Status: payouts.TransferCompleted}}}, nil
}

// TestRecorderRendersSettledPostingsAsRead: a settlement reads its transfer's postings to settle
// them; its events show them as the settlement left them, with the line it made, without reading
// them again. A posting settled that the read did not have makes the lines read back.
func TestRecorderRendersSettledPostingsAsRead(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	noGuard := func(int64) bool { return false }
	tests := []struct {
		name      string
		stranger  bool // the movement also settles a posting the read did not return
		wantReads int
	}{
		{"postings read once", false, 1},
		{"a posting not read", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &settleQueries{postQueries: postQueries{next: 10}, postings: []ledger.Posting{
				{ID: 1, TransferID: "t1", Debit: 2, Credit: 3, Amount: 500, State: ledger.Pending},
				{ID: 2, TransferID: "t1", Debit: 2, Credit: 4, Amount: 25, State: ledger.Pending},
			}}
			r := &recorder{Queries: q}
			read, err := r.PostingsOfTransfers(ctx, "app", []string{"t1"})
			if err != nil {
				t.Fatal(err)
			}
			changes := []ledger.Change{
				{Op: ledger.OpCommit, Posting: &read[0]},
				{Op: ledger.OpVoid, Posting: &read[1]},
				{Op: ledger.OpPost, Posting: &ledger.Posting{TransferID: "t1", Debit: 4, Credit: 2, Amount: 25}},
			}
			if tt.stranger {
				changes = append(changes, ledger.Change{Op: ledger.OpCommit,
					Posting: &ledger.Posting{ID: 9, TransferID: "t1", Debit: 2, Credit: 3, Amount: 1, State: ledger.Pending}})
			}
			m, err := ledger.NewMovement(changes, at, noGuard)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Post(ctx, m); err != nil {
				t.Fatal(err)
			}
			tr := &TransferRecord{AppID: "app", Updated: at, Transfer: payouts.Transfer{ID: "t1",
				Created: payouts.NewTime(at), Type: payouts.TransferPayout, Amount: 500, Status: payouts.TransferCompleted}}
			if err := r.UpdateTransfer(ctx, tr, payouts.TransferPending); err != nil {
				t.Fatal(err)
			}
			if err := r.readTransfers(ctx, q); err != nil {
				t.Fatal(err)
			}
			if q.reads != tt.wantReads {
				t.Errorf("postings read %d times, want %d", q.reads, tt.wantReads)
			}
			got := r.objects["t1"]
			if got == nil || len(got.StatusHistory) != 2 {
				t.Fatalf("rendered %+v, want its history read", got)
			}
			if tt.stranger {
				return // read back from the fake, which knows nothing of the settlement
			}
			var lines []string
			for _, l := range got.Transactions {
				lines = append(lines, fmt.Sprintf("%d %d %s", l.ID, l.Amount, l.Status))
			}
			if want := []string{"1 500 posted", "2 25 voided", "11 25 posted"}; !slices.Equal(lines, want) {
				t.Errorf("lines %q, want %q", lines, want)
			}
		})
	}
}
