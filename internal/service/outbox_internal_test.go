package service

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// readBackQueries answers the reads a transaction's events make of a transfer, counting the
// reads of its postings.
type readBackQueries struct {
	Queries // nil: the test calls nothing else
	reads   int
}

func (q *readBackQueries) PostingsOfTransfers(_ context.Context, _ string, ids []string) ([]ledger.Posting, error) {
	q.reads++
	return []ledger.Posting{{ID: 7, TransferID: ids[0], Amount: 5, State: ledger.Posted}}, nil
}

func (q *readBackQueries) AppWalletID(context.Context, string) (int64, error) { return 1, nil }

func (q *readBackQueries) TransferHistories(_ context.Context, _ string, ids []string) (map[string][]payouts.StatusChange, error) {
	return map[string][]payouts.StatusChange{ids[0]: {{Status: payouts.TransferPending}, {Status: payouts.TransferCompleted}}}, nil
}

// TestTxRendersCreatedTransfersAsWritten: the events of a transfer created in the transaction
// show it as written with the postings it was made with, read from nowhere, until the
// transaction writes it again: then they show it as it stands at the end, read back, but for
// the postings its settlement gave (transferSettled), which are not read again.
func TestTxRendersCreatedTransfersAsWritten(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		updated   bool
		settled   bool
		wantReads int
		wantLines []int64
		wantTypes []payouts.EventType
	}{
		{"created", false, false, 0, []int64{3}, []payouts.EventType{payouts.EventPayoutCreated, payouts.EventTransferUpdated}},
		{"created, then completed", true, false, 1, []int64{7}, []payouts.EventType{payouts.EventPayoutCreated,
			payouts.EventTransferUpdated, payouts.EventPayoutCompleted, payouts.EventType("transfer.completed"), payouts.EventTransferUpdated}},
		{"created, then settled and completed", true, true, 0, []int64{3, 4}, []payouts.EventType{payouts.EventPayoutCreated,
			payouts.EventTransferUpdated, payouts.EventPayoutCompleted, payouts.EventType("transfer.completed"), payouts.EventTransferUpdated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &readBackQueries{}
			tx := &Tx{Queries: q, s: &Service{}}
			tr := &TransferRecord{AppID: "app", Updated: at, Transfer: payouts.Transfer{ID: "t1",
				Created: payouts.NewTime(at), Type: payouts.TransferPayout, Amount: 5, Status: payouts.TransferPending}}
			tx.transferCreated(tr)
			tx.transferWritten(tr, []ledger.Posting{{ID: 3, TransferID: "t1", Amount: 5, State: ledger.Pending}})
			if tt.settled {
				tx.transferSettled("t1", []ledger.Posting{{ID: 3, TransferID: "t1", Amount: 5, State: ledger.Posted},
					{ID: 4, TransferID: "t1", Amount: 1, State: ledger.Posted}})
			}
			if tt.updated {
				tr.Status = payouts.TransferCompleted
				tx.transferUpdated(tr, payouts.TransferPending)
			}
			if err := tx.readTransfers(ctx); err != nil {
				t.Fatal(err)
			}
			if q.reads != tt.wantReads {
				t.Errorf("postings read %d times, want %d", q.reads, tt.wantReads)
			}
			var lines []int64
			for _, l := range tx.written["t1"].Transactions {
				lines = append(lines, l.ID)
			}
			if !slices.Equal(lines, tt.wantLines) {
				t.Errorf("rendered with lines %v, want %v", lines, tt.wantLines)
			}
			if got := len(tx.written["t1"].StatusHistory); tt.updated && got != 2 {
				t.Errorf("rendered with %d statuses, want its history read back (2)", got)
			}
			var types []payouts.EventType
			for _, c := range tx.changes {
				types = append(types, c.typ)
			}
			if !slices.Equal(types, tt.wantTypes) {
				t.Errorf("events %v, want %v", types, tt.wantTypes)
			}
		})
	}
}
