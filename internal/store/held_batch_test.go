package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestBatchHoldsTransfers races write transactions that share commits, each creating a transfer
// with its posting and a yearly payment: the batch writes its transfers together before the
// commit. Some jobs fail after their writes, and some of those read a held table first, which
// writes the rows of the jobs before them inside their own savepoint: their rollback takes those
// out again, and the batch holds them again. Every job that succeeded has its transfer stored
// once, with a seq, its
// posting under the id the job was given, and its payment; no failed job leaves a trace; each
// yearly total answered was right.
func TestBatchHoldsTransfers(t *testing.T) {
	const jobs = 60
	failed := func(i int) bool { return i%4 == 1 || i%7 == 2 }
	readsFirst := func(i int) bool { return i%7 == 2 }
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID, bank, wallet := fundedWallet(t, st, 0)
		payee := userID(0)
		postingIDs := make([]int64, jobs) // as each job's answer would carry them
		errs := inParallel(jobs, func(i int) error {
			tr, p := heldTransfer(appID, bank.ID, wallet.ID, i)
			defer func() { postingIDs[i] = p.ID }()
			return st.InTx(ctx, func(q service.Queries) error {
				if err := q.CreateTransfer(ctx, tr); err != nil {
					return err
				}
				if err := post(ctx, q, p); err != nil {
					return err
				}
				if p.ID == 0 {
					return fmt.Errorf("job %d: posting without an id", i)
				}
				if _, err := addPayment(ctx, q, appID, payee, payouts.Money(i+1)); err != nil {
					return err
				}
				if readsFirst(i) {
					if _, err := q.GetTransfer(ctx, appID, tr.ID); err != nil {
						return err
					}
				}
				if failed(i) {
					return errChangedMind
				}
				return nil
			})
		})
		var want payouts.Money
		for i, err := range errs {
			tr, _ := heldTransfer(appID, bank.ID, wallet.ID, i)
			got, getErr := st.GetTransfer(ctx, appID, tr.ID)
			switch {
			case failed(i) && !errors.Is(err, errChangedMind):
				t.Errorf("job %d: %v, want it to fail alone", i, err)
			case failed(i) && !errors.Is(getErr, service.ErrNoRecord):
				t.Errorf("job %d failed but its transfer reads: %v", i, getErr)
			case failed(i):
			case err != nil:
				t.Errorf("job %d: %v", i, err)
			case getErr != nil || got.Seq == 0:
				t.Errorf("job %d: transfer read %v, seq %d", i, getErr, got.Seq)
			default:
				lines, err := st.PostingsOfTransfers(ctx, appID, []string{tr.ID})
				if err != nil || len(lines) != 1 || lines[0].ID != postingIDs[i] {
					t.Errorf("job %d: postings %+v, %v; want the one with the id it was given, %d", i, lines, err, postingIDs[i])
				}
				want += payouts.Money(i + 1)
			}
		}
		total, err := st.YearlyPayments(ctx, appID, payee, 2026)
		if err != nil || total != want {
			t.Errorf("yearly total %d (%v), want %d", total, err, want)
		}
	})
}
