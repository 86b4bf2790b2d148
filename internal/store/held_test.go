package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
// each item in a savepoint, some rolled back, with a read of a held table halfway: what was kept
// is stored once, with the seq and id it was given, each yearly total as it was answered, and
// what was rolled back is not.
func TestHeldRows(t *testing.T) {
	const n = 450
	failed := func(i int) bool { return i%5 == 3 }
	payee := func(i int) string { return userID(i % 3) }
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		addPayments := func(q service.UserWrites, user string, amount int) (payouts.Money, error) {
			return q.AddYearlyPayments(ctx, appID, user, 2026, payouts.Money(amount))
		}
		want := map[string]payouts.Money{payee(0): 1000}
		if _, err := addPayments(st, payee(0), 1000); err != nil {
			t.Fatal(err)
		}
		transfers, postings := make([]*service.TransferRecord, n), make([]*ledger.Posting, n)
		err := st.InTx(ctx, func(q service.Queries) error {
			for i := range n {
				transfers[i], postings[i] = heldTransfer(appID, bank.ID, wallet.ID, i)
				err := q.Savepoint(ctx, func() error {
					if err := q.CreateTransfer(ctx, transfers[i]); err != nil {
						return err
					}
					if err := post(ctx, q, postings[i]); err != nil {
						return err
					}
					total, err := addPayments(q, payee(i), i+1)
					if err != nil {
						return err
					}
					if total != want[payee(i)]+payouts.Money(i+1) {
						return fmt.Errorf("item %d: yearly total %d, want %d", i, total, want[payee(i)]+payouts.Money(i+1))
					}
					if failed(i) {
						return errChangedMind
					}
					return nil
				})
				if err != nil && !errors.Is(err, errChangedMind) {
					return err
				}
				if !failed(i) {
					want[payee(i)] += payouts.Money(i + 1)
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
			if got, err := addPayments(st, user, 0); err != nil || got != total {
				t.Errorf("yearly payments of %s: %d, %v; want %d", user, got, err, total)
			}
		}
		for i := range n {
			got, err := st.GetTransfer(ctx, appID, transfers[i].ID)
			if failed(i) {
				if !errors.Is(err, service.ErrNoRecord) {
					t.Fatalf("transfer %d, rolled back: %v", i, err)
				}
				continue
			}
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

// TestHeldRowsWrittenInRolledBackSavepoint reads a held table inside a savepoint that is then
// rolled back: the rows held before it, written by that read, went with the rollback, and are
// held again and written at the end, once, with the seq they were given then.
func TestHeldRowsWrittenInRolledBackSavepoint(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		tr, _ := heldTransfer(appID, bank.ID, wallet.ID, 0)
		err := st.InTx(ctx, func(q service.Queries) error {
			if err := q.CreateTransfer(ctx, tr); err != nil {
				return err
			}
			err := q.Savepoint(ctx, func() error {
				if _, err := q.GetTransfer(ctx, appID, tr.ID); err != nil {
					return err
				}
				return errChangedMind
			})
			if !errors.Is(err, errChangedMind) {
				return fmt.Errorf("savepoint: %w", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.GetTransfer(ctx, appID, tr.ID)
		if err != nil || got.Seq != tr.Seq {
			t.Fatalf("transfer after the commit: %+v, %v; given seq %d", got, err, tr.Seq)
		}
	})
}
