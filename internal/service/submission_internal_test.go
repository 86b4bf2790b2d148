package service

import (
	"context"
	"errors"
	"testing"

	"github.com/disburse/disburse/payouts"
)

// appReads fails every read of an app, counting them, and has no payout methods.
type appReads struct {
	Queries // nil: the test calls nothing else
	err     error
	reads   int
}

func (q *appReads) GetApp(context.Context, string) (*AppRecord, error) {
	q.reads++
	return nil, q.err
}

func (q *appReads) ListPayoutMethods(context.Context, string, ...string) ([]PayoutMethodRecord, error) {
	return nil, nil
}

// TestRailMethodsOrFailReturnsStoreErrors: a store that fails while an app's withdrawal looks
// for its bank account fails the claim, which runs again, and not the payout: only a method that
// is gone fails a payout. Failing it would read the app again, for its book.
func TestRailMethodsOrFailReturnsStoreErrors(t *testing.T) {
	q := &appReads{err: errors.New("disk I/O error")}
	withdrawal := &TransferRecord{AppID: "app", Transfer: payouts.Transfer{ID: "t1", Type: payouts.TransferPayout}}
	methods, err := (&Service{}).railMethodsOrFail(context.Background(), &Tx{Queries: q}, []*TransferRecord{withdrawal}, payouts.TransferPending)
	if !errors.Is(err, q.err) || methods != nil || q.reads != 1 {
		t.Fatalf("railMethodsOrFail = %v, %v after %d reads of the app; want the store's error after one, "+
			"and no payout failed", methods, err, q.reads)
	}
}
