package api_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// TestResendPendingDelivery: a resend of an event whose delivery to the endpoint is still
// pending is refused (409 resource-busy) and queues nothing; once the delivery is made, the same
// resend queues it again. On both engines.
func TestResendPendingDelivery(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			env := servicetest.Start(t, append(frozen(), engine.opts()...)...)
			ctx := context.Background()
			api := newClient(t, env)
			rcv := newReceiver(t, nil)
			ep, err := api.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: rcv.srv.URL + "/hook"})
			if err != nil {
				t.Fatal(err)
			}
			e, err := api.SendTestWebhook(ctx, ep.ID)
			if err != nil {
				t.Fatal(err)
			}
			n, err := api.ResendWebhooks(ctx, ep.ID, payouts.ResendWebhooksRequest{EventID: e.ID})
			var pe *payouts.Error
			if !errors.As(err, &pe) || pe.Code != payouts.EResourceBusy || pe.Status != http.StatusConflict || n != 0 {
				t.Fatalf("resend of a pending delivery: %d, %v; want 409 %s", n, err, payouts.EResourceBusy)
			}
			deliverAll(t, env, 5)
			if got := len(rcv.at("/hook")); got != 1 {
				t.Fatalf("receiver got %d deliveries, want 1 (the refused resend queued one)", got)
			}
			if n, err := api.ResendWebhooks(ctx, ep.ID, payouts.ResendWebhooksRequest{EventID: e.ID}); err != nil || n != 1 {
				t.Fatalf("resend of a delivered event: %d, %v; want 1", n, err)
			}
		})
	}
}
