package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestTransferHistories reads the statuses of three transfers: one created and then moved on,
// one created inside held inserts and never changed, and one as a database made before migration
// 0013 holds it, whose first step is a transfer_events row and not its own row's first_status.
func TestTransferHistories(t *testing.T) {
	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	step := func(status payouts.TransferStatus, reason string, at time.Time) payouts.StatusChange {
		return payouts.StatusChange{Status: status, Reason: reason, At: payouts.NewTime(at)}
	}
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		transfer := func(n int, status payouts.TransferStatus) *service.TransferRecord {
			return &service.TransferRecord{AppID: appID, Updated: t0, Transfer: payouts.Transfer{
				ID: userID(900 + n), Type: payouts.TransferPayout, Amount: 100, Status: status,
				Created: payouts.NewTime(t0)}}
		}
		moved, held, old := transfer(1, payouts.TransferPending), transfer(2, payouts.TransferCompleted), transfer(3, payouts.TransferCreated)
		err := st.InTx(ctx, func(q service.Queries) error {
			if err := q.CreateTransfer(ctx, moved); err != nil {
				return err
			}
			return q.CreateTransfer(ctx, held)
		})
		if err != nil {
			t.Fatal(err)
		}
		err = st.InTx(ctx, func(q service.Queries) error {
			moved.Status, moved.FailureReason, moved.Updated = payouts.TransferFailed, "rail refused", t1
			return q.UpdateTransfer(ctx, moved, payouts.TransferPending)
		})
		if err != nil {
			t.Fatal(err)
		}
		// The old transfer, written as the schema before 0013 did: no first_status, and its
		// first step in transfer_events.
		if err := st.CreateTransfer(ctx, old); err != nil {
			t.Fatal(err)
		}
		db := st.DB()
		const step0 = `INSERT INTO transfer_events (app_id, transfer_id, status, reason, at) VALUES (?, ?, ?, '', ?)`
		for _, w := range []struct {
			stmt string
			args []any
		}{
			{`UPDATE transfers SET first_status = NULL WHERE id = ?`, []any{old.ID}},
			{step0, []any{appID, old.ID, payouts.TransferCreated, sqldb.Micros(t0)}},
			{step0, []any{appID, old.ID, payouts.TransferCompleted, sqldb.Micros(t2)}},
		} {
			if _, err := db.ExecContext(ctx, sqldb.Rebind(db.Dialect, w.stmt), w.args...); err != nil {
				t.Fatal(err)
			}
		}

		got, err := st.TransferHistories(ctx, appID, []string{moved.ID, held.ID, old.ID})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]payouts.StatusChange{
			moved.ID: {step(payouts.TransferPending, "", t0), step(payouts.TransferFailed, "rail refused", t1)},
			held.ID:  {step(payouts.TransferCompleted, "", t0)},
			old.ID:   {step(payouts.TransferCreated, "", t0), step(payouts.TransferCompleted, "", t2)},
		}
		for id, w := range want {
			if !reflect.DeepEqual(got[id], w) {
				t.Errorf("history of %s = %+v, want %+v", id, got[id], w)
			}
		}
		// The ids are read without the app in the query: another app's transfers stay unread.
		if other, err := st.TransferHistories(ctx, newApp(t, st, "other"), []string{moved.ID, held.ID, old.ID}); err != nil || len(other) != 0 {
			t.Errorf("another app reads these histories: %+v, %v", other, err)
		}
		var rows int
		if err := db.QueryRowContext(ctx, sqldb.Rebind(db.Dialect, `SELECT count(*) FROM transfer_events WHERE transfer_id IN (?, ?)`),
			moved.ID, held.ID).Scan(&rows); err != nil || rows != 1 {
			t.Errorf("transfer_events rows of the new transfers = %d, %v; want 1, their first steps in their own rows", rows, err)
		}
	})
}
