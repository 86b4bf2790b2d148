package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/payouts"
)

// TestUpdateClaimedPayout writes a rail's receipt only while the payout is still the caller's
// claim: pending, in the rail state it was claimed in, with the same attempts. Any other row is
// left as it was and the caller told ErrNoRecord.
func TestUpdateClaimedPayout(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		tests := []struct {
			name     string
			status   payouts.TransferStatus
			state    service.RailState
			attempts int
			written  bool
		}{
			{"still the claim", payouts.TransferPending, service.RailSubmitting, 1, true},
			{"claimed again by another worker", payouts.TransferPending, service.RailSubmitting, 2, false},
			{"submitted meanwhile", payouts.TransferPending, service.RailSubmitted, 1, false},
			{"failed meanwhile", payouts.TransferFailed, service.RailSubmitting, 1, false},
		}
		for n, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				stored := &service.TransferRecord{AppID: appID, Updated: t0, RailState: tt.state, Attempts: tt.attempts,
					LeaseUntil: t0.Add(time.Minute), Transfer: payouts.Transfer{ID: userID(950 + n), Type: payouts.TransferPayout,
						Amount: 100, Status: tt.status, Created: payouts.NewTime(t0)}}
				if err := st.CreateTransfer(ctx, stored); err != nil {
					t.Fatal(err)
				}
				// The caller's claim: pending, submitting, first attempt; the rail's receipt.
				answer := *stored
				answer.Status, answer.Attempts = payouts.TransferPending, 1
				answer.RailState, answer.ExternalData.ExternalID = service.RailSubmitted, "rail-"+stored.ID
				answer.SettleAt, answer.LeaseUntil, answer.Updated = t0.Add(5*time.Second), time.Time{}, t0.Add(time.Second)
				err := st.InTx(ctx, func(q service.Queries) error {
					return q.UpdateClaimedPayout(ctx, &answer, service.RailSubmitting)
				})
				if tt.written != (err == nil) || (err != nil && !errors.Is(err, service.ErrNoRecord)) {
					t.Fatalf("UpdateClaimedPayout: %v, want written %v or ErrNoRecord", err, tt.written)
				}
				got, err := st.GetTransfer(ctx, appID, stored.ID)
				if err != nil {
					t.Fatal(err)
				}
				want := stored
				if tt.written {
					want = &answer
				}
				if got.Status != want.Status || got.RailState != want.RailState || got.Attempts != want.Attempts ||
					got.ExternalData.ExternalID != want.ExternalData.ExternalID || !got.SettleAt.Equal(want.SettleAt) ||
					!got.LeaseUntil.Equal(want.LeaseUntil) || !got.Updated.Equal(want.Updated) {
					t.Errorf("stored %+v, want %+v", got, want)
				}
			})
		}
	})
}
