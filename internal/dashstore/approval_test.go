package dashstore_test

import (
	"context"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
)

func newApproval(key string, maker dashstore.Operator) *dashstore.Approval {
	return &dashstore.Approval{Kind: "payout", Request: `{"amount":100001}`, IdempotencyKey: key, Amount: 1000_01,
		AppID: "app", PayeeName: "Ann Payee", PayeeEmail: "ann@example.com", Method: "PayPal",
		MakerID: maker.ID, MakerEmail: maker.Email}
}

func TestApprovals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		maker := mustCreate(t, s, "maker@example.com", dashstore.RoleOperations)
		checker := mustCreate(t, s, "checker@example.com", dashstore.RoleManager)

		t.Run("one approval per idempotency key", func(t *testing.T) {
			first := newApproval("11111111-1111-4111-8111-111111111111", maker)
			if created, err := s.CreateApproval(ctx, first, t0); err != nil || !created {
				t.Fatalf("created %v, %v", created, err)
			}
			again := newApproval(first.IdempotencyKey, maker)
			created, err := s.CreateApproval(ctx, again, t0.Add(1))
			if err != nil || created {
				t.Fatalf("the same key again: created %v, %v", created, err)
			}
			if again.ID != first.ID || again.Status != dashstore.ApprovalPending {
				t.Errorf("the same key made approval %s (%s), want %s", again.ID, again.Status, first.ID)
			}
			if n, err := s.CountOpenApprovals(ctx); err != nil || n != 1 {
				t.Errorf("open approvals = %d (%v), want 1", n, err)
			}
		})

		t.Run("approve runs once, and a rejection comes too late", func(t *testing.T) {
			a := newApproval("22222222-2222-4222-8222-222222222222", maker)
			if _, err := s.CreateApproval(ctx, a, t0); err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.StartApproval(ctx, a.ID, checker, t0)
			if err != nil || !ok || got.Status != dashstore.ApprovalRunning || got.CheckerID != checker.ID {
				t.Fatalf("start = %+v, %v, %v", got, ok, err)
			}
			if _, changed, err := s.RejectApproval(ctx, a.ID, checker, "no", t0); err != nil || changed {
				t.Errorf("rejecting an approving approval changed it (%v)", err)
			}
			got, err = s.FinishApproval(ctx, a.ID, dashstore.ApprovalApproved, "transfer-1", "", t0)
			if err != nil || got.Status != dashstore.ApprovalApproved || got.ResultID != "transfer-1" || got.Decided.IsZero() {
				t.Fatalf("finish = %+v, %v", got, err)
			}
			// Finishing sets the outcome and keeps who approved it.
			if got.CheckerID != checker.ID || got.CheckerEmail != checker.Email || got.Reason != "" {
				t.Errorf("finish lost the checker or made up a reason: %+v", got)
			}
			if _, ok, err := s.StartApproval(ctx, a.ID, checker, t0); err != nil || ok {
				t.Errorf("an approved approval started again (ok %v, %v)", ok, err)
			}
		})

		t.Run("reject keeps the reason and closes it", func(t *testing.T) {
			a := newApproval("33333333-3333-4333-8333-333333333333", maker)
			if _, err := s.CreateApproval(ctx, a, t0); err != nil {
				t.Fatal(err)
			}
			got, changed, err := s.RejectApproval(ctx, a.ID, checker, "not this week", t0)
			if err != nil || !changed || got.Status != dashstore.ApprovalRejected || got.Reason != "not this week" {
				t.Fatalf("reject = %+v, %v, %v", got, changed, err)
			}
			if _, ok, _ := s.StartApproval(ctx, a.ID, checker, t0); ok {
				t.Error("a rejected approval started")
			}
		})

		t.Run("lists", func(t *testing.T) {
			open, _, err := s.Approvals(ctx, dashstore.ApprovalFilter{Open: true})
			if err != nil || len(open) != 1 || open[0].IdempotencyKey != "11111111-1111-4111-8111-111111111111" {
				t.Errorf("open = %+v, %v; want the first one", open, err)
			}
			decided, _, err := s.Approvals(ctx, dashstore.ApprovalFilter{})
			if err != nil || len(decided) != 2 {
				t.Errorf("decided = %d (%v), want 2", len(decided), err)
			}
		})

		t.Run("not found", func(t *testing.T) {
			if _, err := s.Approval(ctx, "nope"); err == nil {
				t.Error("an unknown approval was found")
			}
		})
	})
}
