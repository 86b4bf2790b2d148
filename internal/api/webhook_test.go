package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// receiver is a real HTTP webhook receiver: it keeps what arrives, and answers 500 to the first
// failures[path] requests of a path, 200 after.
type receiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	failures map[string]int
	got      []received
}

type received struct {
	path   string
	header http.Header
	body   []byte
	status int
}

func newReceiver(t *testing.T, failures map[string]int) *receiver {
	t.Helper()
	r := &receiver{failures: failures}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		status := http.StatusOK
		if r.failures[req.URL.Path] > 0 {
			r.failures[req.URL.Path]--
			status = http.StatusInternalServerError
		}
		r.got = append(r.got, received{path: req.URL.Path, header: req.Header.Clone(), body: body, status: status})
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// at returns what arrived at path, in order.
func (r *receiver) at(path string) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []received
	for _, g := range r.got {
		if g.path == path {
			out = append(out, g)
		}
	}
	return out
}

// deliverAll runs the delivery worker, moving the clock on a minute between rounds, until no
// delivery is left pending (at most rounds rounds).
func deliverAll(t *testing.T, env *servicetest.Env, rounds int) {
	t.Helper()
	ctx := context.Background()
	for range rounds {
		if _, err := env.Service.DeliverWebhooks(ctx, 100); err != nil {
			t.Fatalf("deliver webhooks: %v", err)
		}
		backlog, err := env.Service.WebhookBacklog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if backlog == 0 {
			return
		}
		env.Clock.Advance(time.Minute)
	}
	t.Fatalf("deliveries still pending after %d rounds", rounds)
}

// verified checks that a delivery carries a Standard Webhooks signature under secret and returns
// its event.
func verified(t *testing.T, env *servicetest.Env, secret string, got received) payouts.Event {
	t.Helper()
	if err := client.VerifyWebhookAt(secret, got.header, got.body, env.Clock.Now()); err != nil {
		t.Fatalf("delivery to %s does not verify: %v", got.path, err)
	}
	var e payouts.Event
	if err := json.Unmarshal(got.body, &e); err != nil {
		t.Fatal(err)
	}
	if got.header.Get("webhook-id") != e.ID {
		t.Fatalf("webhook-id %q, event id %q", got.header.Get("webhook-id"), e.ID)
	}
	return e
}

func newClient(t *testing.T, env *servicetest.Env) *client.Client {
	t.Helper()
	c, err := client.New(env.URL, client.WithCredentials(env.ClientID, env.APIKey))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWebhooksEndToEnd follows a payout from the API to a receiver: its created and completed
// events arrive signed, in the order they happened; a receiver that fails three times gets the
// event on the fourth try; a resend arrives again with the same webhook-id.
func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, frozen()...)
	ctx := context.Background()
	api := newClient(t, env)
	rcv := newReceiver(t, map[string]int{"/flaky": 3})
	good, err := api.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: rcv.srv.URL + "/good",
		EventTypes: []payouts.EventType{payouts.EventPayoutCreated, payouts.EventPayoutCompleted}})
	if err != nil {
		t.Fatal(err)
	}
	flaky, err := api.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: rcv.srv.URL + "/flaky",
		EventTypes: []payouts.EventType{payouts.EventPayoutCreated}})
	if err != nil {
		t.Fatal(err)
	}

	creds := env.Credentials()
	deposit(t, env, creds, 100_00)
	payee := createUser(t, env, creds)
	addMethod(t, env, creds, payee.ID, paypalBody)
	payout := createPayout(t, env, map[string]any{"user_id": payee.ID, "amount": 10_00, "platform": "paypal", "fund": true})
	if n := settle(t, env, time.Hour); n != 1 {
		t.Fatalf("settled %d payouts, want 1", n)
	}
	deliverAll(t, env, 20)

	t.Run("created and completed arrive signed, in order", func(t *testing.T) {
		got := rcv.at("/good")
		if len(got) != 2 {
			t.Fatalf("good endpoint got %d deliveries, want 2", len(got))
		}
		for i, want := range []struct {
			typ    payouts.EventType
			status payouts.TransferStatus
		}{{payouts.EventPayoutCreated, payouts.TransferPending}, {payouts.EventPayoutCompleted, payouts.TransferCompleted}} {
			e := verified(t, env, good.Secret, got[i])
			var tr payouts.Transfer
			if err := json.Unmarshal(e.Data, &tr); err != nil {
				t.Fatal(err)
			}
			if e.Type != want.typ || e.ObjectID != payout.ID || tr.ID != payout.ID || tr.Status != want.status {
				t.Errorf("delivery %d: %s of %s (transfer %s %s), want %s of %s (%s)", i, e.Type, e.ObjectID, tr.ID,
					tr.Status, want.typ, payout.ID, want.status)
			}
		}
	})

	t.Run("a receiver failing three times gets it on the fourth try", func(t *testing.T) {
		got := rcv.at("/flaky")
		if len(got) != 4 {
			t.Fatalf("flaky endpoint got %d requests, want 4", len(got))
		}
		for i, g := range got {
			e := verified(t, env, flaky.Secret, g)
			if want := []int{500, 500, 500, 200}[i]; g.status != want || e.Type != payouts.EventPayoutCreated {
				t.Errorf("request %d: %s answered %d, want payout.created answered %d", i, e.Type, g.status, want)
			}
		}
		attempts, err := api.ListWebhookAttempts(ctx, flaky.ID, "", payouts.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if len(attempts.Data) != 4 || attempts.Data[0].StatusCode != 200 || attempts.Data[0].Delivery != payouts.DeliverySucceeded ||
			attempts.Data[1].StatusCode != 500 || attempts.Data[1].Delivery != payouts.DeliveryPending {
			t.Errorf("attempts %+v, want 200 succeeded after three 500s", attempts.Data)
		}
	})

	t.Run("a resend arrives again with the same id", func(t *testing.T) {
		first := verified(t, env, good.Secret, rcv.at("/good")[0])
		if n, err := api.ResendWebhooks(ctx, good.ID, payouts.ResendWebhooksRequest{EventID: first.ID}); err != nil || n != 1 {
			t.Fatalf("resend: %d, %v", n, err)
		}
		deliverAll(t, env, 5)
		got := rcv.at("/good")
		if len(got) != 3 || verified(t, env, good.Secret, got[2]).ID != first.ID {
			t.Fatalf("good endpoint got %d deliveries, want the resent %s last", len(got), first.ID)
		}
	})

	t.Run("events list by object", func(t *testing.T) {
		list, err := api.ListEvents(ctx, payouts.Page{}, payouts.EventFilter{ObjectID: payout.ID})
		if err != nil {
			t.Fatal(err)
		}
		var types []payouts.EventType
		for _, e := range list.Data {
			types = append(types, e.Type)
		}
		// The public API's names follow ours: transfer.updated for each status after the first
		// (made pending, then completed), and transfer.completed for a payout's end.
		want := []payouts.EventType{payouts.EventTransferUpdated, payouts.EventTransferCompleted, payouts.EventPayoutCompleted,
			payouts.EventTransferUpdated, payouts.EventPayoutCreated}
		if !slices.Equal(types, want) {
			t.Errorf("events of the payout %v, want %v (newest first)", types, want)
		}
	})
}
