package service_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
)

// TestCreateAnswersWhatIsStored: a transfer or deposit answered from the write that made it is
// the same, byte for byte in JSON, as a read of it afterwards, and so are its events (rendered
// from the write too) and the answer to a replay.
func TestCreateAnswersWhatIsStored(t *testing.T) {
	e := newEnv(t, 1_000_00)
	tests := []struct {
		name   string
		create func(key string) (*payouts.Transfer, error)
	}{
		{"transfer to the user", func(key string) (*payouts.Transfer, error) {
			return e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -2_50,
				Metadata: payouts.Metadata(`{"order":"A-1"}`), IdempotencyKey: key})
		}},
		{"transfer from the user, counted for tax", func(key string) (*payouts.Transfer, error) {
			return e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: 1_00, IdempotencyKey: key})
		}},
		{"deposit", func(key string) (*payouts.Transfer, error) {
			return e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: 7_00, IdempotencyKey: key})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := uuid.NewString()
			made, err := tt.create(key)
			if err != nil {
				t.Fatal(err)
			}
			read, err := e.svc.GetTransfer(e.ctx, e.app, made.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := asJSON(t, made), asJSON(t, read); got != want {
				t.Errorf("create answered\n%s\na read answers\n%s", got, want)
			}
			events, err := e.svc.ListEvents(e.ctx, e.app, payouts.Page{}, payouts.EventFilter{ObjectID: made.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(events.Data) != 3 {
				t.Errorf("%d events of the transfer, want created, completed and the public API's transfer.updated", len(events.Data))
			}
			for _, ev := range events.Data {
				if got, want := string(ev.Data), asJSON(t, read); got != want {
					t.Errorf("event %s says\n%s\na read answers\n%s", ev.Type, got, want)
				}
			}
			replay, err := tt.create(key)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := asJSON(t, replay), asJSON(t, read); got != want {
				t.Errorf("replay answered\n%s\na read answers\n%s", got, want)
			}
		})
	}
}
