package service_test

import (
	"context"
	"testing"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/payouts"
)

// correctingNotifier corrects a link's payee while its message to the old address is on its way
// (leased, outside any transaction), and then fails that message, as a bounce would.
type correctingNotifier struct {
	correct func(ctx context.Context) error
	sent    []string
}

func (n *correctingNotifier) Send(ctx context.Context, m service.Message) error {
	n.sent = append(n.sent, m.To)
	if m.To != "old-typo@example.com" {
		return nil
	}
	if err := n.correct(ctx); err != nil {
		return err
	}
	return service.ErrUndeliverable
}

// TestCorrectionOutrunsMessageInFlight: a message to a link's old address that fails after its
// payee was corrected says nothing of the link, which waits for its message to the new address
// (delivery_pending) instead of showing delivery_failed; that one then delivers it. On both
// engines.
func TestCorrectionOutrunsMessageInFlight(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 50_00)
		var linkID string
		n := &correctingNotifier{correct: func(ctx context.Context) error {
			_, err := e.svc.CorrectPayoutLinkContact(ctx, e.app, linkID, payouts.CorrectPayoutLinkContactRequest{
				Payee: payouts.Payee{FirstName: "Ola", Email: "ola@example.com"}})
			return err
		}}
		e.notifier = n
		e.open(t)
		l, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 5_00,
			Payee: &payouts.Payee{FirstName: "Ola", Email: "old-typo@example.com"}, Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail}})
		if err != nil {
			t.Fatal(err)
		}
		linkID = l.ID
		status := func() payouts.PayoutLinkStatus {
			t.Helper()
			got, err := e.svc.GetPayoutLink(e.ctx, e.app, linkID)
			if err != nil {
				t.Fatal(err)
			}
			return got.Status
		}
		for _, step := range []struct {
			name string
			want payouts.PayoutLinkStatus
		}{
			{"the old address's message fails after the correction", payouts.LinkDeliveryPending},
			{"the new address's message is sent", payouts.LinkDelivered},
		} {
			t.Run(step.name, func(t *testing.T) {
				if _, err := e.svc.DeliverDue(e.ctx, 10); err != nil {
					t.Fatal(err)
				}
				if got := status(); got != step.want {
					t.Fatalf("link %s, want %s (sent to %v)", got, step.want, n.sent)
				}
			})
		}
	})
}
