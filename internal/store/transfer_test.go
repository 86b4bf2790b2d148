package store_test

import (
	"context"
	"errors"
	"slices"
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

// TestClaimDuePayouts claims, in one statement, the pending payouts whose time has come and whose
// lease ran out, longest due first: each claimed is given one more attempt and the lease, as
// returned and as stored. A payout leased to another worker, not yet due, or settled is left.
func TestClaimDuePayouts(t *testing.T) {
	engines(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		appID := newApp(t, st, "acme")
		rows := []struct {
			name            string
			status          payouts.TransferStatus
			settleAt, lease time.Duration // from t0
		}{
			{"due first", payouts.TransferPending, -3 * time.Minute, -time.Minute},
			{"due second", payouts.TransferPending, -2 * time.Minute, 0},
			{"due third", payouts.TransferPending, -time.Minute, 0},
			{"leased to another worker", payouts.TransferPending, -4 * time.Minute, time.Minute},
			{"not yet due", payouts.TransferPending, time.Minute, 0},
			{"completed", payouts.TransferCompleted, -5 * time.Minute, 0},
		}
		ids := map[string]string{}
		for n, p := range rows {
			rec := &service.TransferRecord{AppID: appID, Updated: t0.Add(-time.Hour), RailState: service.RailSubmitted,
				SettleAt: t0.Add(p.settleAt), LeaseUntil: t0.Add(p.lease), Transfer: payouts.Transfer{ID: userID(960 + n),
					Type: payouts.TransferPayout, Amount: 100, Status: p.status, Created: payouts.NewTime(t0.Add(-time.Hour))}}
			if err := st.CreateTransfer(ctx, rec); err != nil {
				t.Fatal(err)
			}
			ids[rec.ID] = p.name
		}
		until := t0.Add(30 * time.Second)
		for _, claim := range []struct {
			limit int
			want  []string
		}{
			{2, []string{"due first", "due second"}},
			{10, []string{"due third"}},
			{10, nil},
		} {
			var claimed []service.TransferRecord
			err := st.InTx(ctx, func(q service.Queries) (err error) {
				claimed, err = q.ClaimDuePayouts(ctx, t0, until, claim.limit)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range claimed {
				names = append(names, ids[c.ID])
				stored, err := st.GetTransfer(ctx, appID, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, got := range []*service.TransferRecord{&c, stored} {
					if got.Attempts != 1 || !got.LeaseUntil.Equal(until) || !got.Updated.Equal(t0) || got.Status != payouts.TransferPending {
						t.Errorf("%s claimed as attempts %d, lease %v, updated %v, %s; want 1, %v, %v, pending",
							ids[c.ID], got.Attempts, got.LeaseUntil, got.Updated, got.Status, until, t0)
					}
				}
			}
			if !slices.Equal(names, claim.want) {
				t.Errorf("claim of %d took %v, want %v", claim.limit, names, claim.want)
			}
		}
	})
}
