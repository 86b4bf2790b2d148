package api_test

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestWebhookEndpointBadInput(t *testing.T) {
	t.Parallel()
	// Production mode: no sandbox, so private targets are refused.
	env := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = true }))
	other := env.CreateApp(t, "Other app")
	var ep payouts.WebhookEndpoint
	call{method: "POST", path: "/v2/webhook-endpoints", body: map[string]any{"url": "https://hooks.example.com/in"},
		status: http.StatusCreated}.do(t, env).Decode(t, &ep)
	if !strings.HasPrefix(ep.Secret, "whsec_") || !ep.Enabled {
		t.Fatalf("created %+v, want enabled with a whsec_ secret", ep)
	}
	var again payouts.WebhookEndpoint
	call{method: "GET", path: "/v2/webhook-endpoints/" + ep.ID, status: http.StatusOK}.do(t, env).Decode(t, &again)
	if again.Secret != "" {
		t.Fatal("GET shows the secret; it is shown only at creation")
	}
	var theirs payouts.WebhookEndpoint
	call{method: "POST", path: "/v2/webhook-endpoints", as: &other, body: map[string]any{"url": "https://hooks.example.com/o"},
		status: http.StatusCreated}.do(t, env).Decode(t, &theirs)

	path := "/v2/webhook-endpoints"
	calls := []call{
		{name: "no url", method: "POST", path: path, body: map[string]any{}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "ftp url", method: "POST", path: path, body: map[string]any{"url": "ftp://x.example.com"}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "loopback", method: "POST", path: path, body: map[string]any{"url": "http://127.0.0.1:9/in"}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "localhost", method: "POST", path: path, body: map[string]any{"url": "http://localhost/in"}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "private", method: "POST", path: path, body: map[string]any{"url": "http://10.0.0.8/in"}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "link-local metadata", method: "POST", path: path, body: map[string]any{"url": "http://169.254.169.254/"}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "unknown event type", method: "POST", path: path, body: map[string]any{"url": "https://x.example.com", "event_types": []string{"payout.exploded"}}, status: 400, code: payouts.EInvalidInput, field: "event_types"},
		{name: "repeated event type", method: "POST", path: path, body: map[string]any{"url": "https://x.example.com", "event_types": []string{"payout.created", "payout.created"}}, status: 400, code: payouts.EInvalidInput, field: "event_types"},
		{name: "patch to private", method: "PATCH", path: path + "/" + ep.ID, body: map[string]any{"url": "http://192.168.0.1/"}, status: 400, code: payouts.EInvalidInput, field: "url"},
		{name: "overlap too long", method: "POST", path: path + "/" + ep.ID + "/rotate-secret", body: map[string]any{"overlap_seconds": 700000}, status: 400, code: payouts.EInvalidInput, field: "overlap_seconds"},
		// Seconds that wrap when made a time.Duration must not come out as a short overlap.
		{name: "overlap of the most negative seconds", method: "POST", path: path + "/" + ep.ID + "/rotate-secret", body: map[string]any{"overlap_seconds": int64(math.MinInt64)}, status: 400, code: payouts.EInvalidInput, field: "overlap_seconds"},
		{name: "overlap that wraps past int64 nanoseconds", method: "POST", path: path + "/" + ep.ID + "/rotate-secret", body: map[string]any{"overlap_seconds": int64(18446744074)}, status: 400, code: payouts.EInvalidInput, field: "overlap_seconds"},
		{name: "overlap of the most positive seconds", method: "POST", path: path + "/" + ep.ID + "/rotate-secret", body: map[string]any{"overlap_seconds": int64(math.MaxInt64)}, status: 400, code: payouts.EInvalidInput, field: "overlap_seconds"},
		{name: "negative overlap", method: "POST", path: path + "/" + ep.ID + "/rotate-secret", body: map[string]any{"overlap_seconds": -1}, status: 400, code: payouts.EInvalidInput, field: "overlap_seconds"},
		{name: "resend neither", method: "POST", path: path + "/" + ep.ID + "/resend", body: map[string]any{}, status: 400, code: payouts.EInvalidInput, field: "event_id"},
		{name: "resend unknown event", method: "POST", path: path + "/" + ep.ID + "/resend", body: map[string]any{"event_id": unknownID}, status: 404, code: payouts.ENotFound},
		{name: "bad event type filter", method: "GET", path: "/v2/events?type=nope", status: 400, code: payouts.EInvalidInput, field: "type"},
		{name: "bad object filter", method: "GET", path: "/v2/events?object_id=nope", status: 400, code: payouts.EInvalidInput, field: "object_id"},
	}
	calls = append(calls, notFoundCalls("GET", func(id string) string { return path + "/" + id }, nil, theirs.ID)...)
	calls = append(calls, notFoundCalls("DELETE", func(id string) string { return path + "/" + id }, nil, theirs.ID)...)
	calls = append(calls, notFoundCalls("POST", func(id string) string { return path + "/" + id + "/test" }, nil, theirs.ID)...)
	calls = append(calls, notFoundCalls("GET", func(id string) string { return "/v2/events/" + id }, nil, unknownID)...)
	runCalls(t, env, calls)
}

// TestFailingEndpointIsDisabled: a receiver that never answers 2xx has its delivery marked
// failed after about three days of retries, and its endpoint disabled with an event saying so.
func TestFailingEndpointIsDisabled(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, frozen()...)
	ctx := context.Background()
	rcv := newReceiver(t, map[string]int{"/down": 1 << 30})
	api := newClient(t, env)
	ep, err := api.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: rcv.srv.URL + "/down",
		EventTypes: []payouts.EventType{payouts.EventUserCreated}})
	if err != nil {
		t.Fatal(err)
	}
	createUser(t, env, env.Credentials())
	for range 200 {
		if _, err := env.Service.DeliverWebhooks(ctx, 100); err != nil {
			t.Fatal(err)
		}
		env.Clock.Advance(time.Hour)
	}
	got, err := api.GetWebhookEndpoint(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Enabled || got.DisabledReason == "" {
		t.Errorf("endpoint %+v, want disabled with a reason", got)
	}
	events, err := api.ListEvents(ctx, payouts.Page{}, payouts.EventFilter{Type: payouts.EventWebhookEndpointDisabled, ObjectID: ep.ID})
	if err != nil || len(events.Data) != 1 {
		t.Fatalf("webhook_endpoint.disabled events %v, %v; want one", events, err)
	}
	attempts, err := api.ListWebhookAttempts(ctx, ep.ID, "", payouts.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(attempts.Data); n < 10 || n > 30 || attempts.Data[0].Delivery != payouts.DeliveryFailed {
		t.Errorf("%d attempts, the last %s; want 10 to 30 over three days, the last failed", n, attempts.Data[0].Delivery)
	}
}

// TestEventsOfEachChange: each kind of state change writes its events, in order, about the
// object it changed.
func TestEventsOfEachChange(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t)
	ctx := context.Background()
	creds := env.Credentials()
	deposit(t, env, creds, 100_00)
	user := createUser(t, env, creds)
	call{method: "PUT", path: "/v2/users/" + user.ID + "/compliance", body: map[string]any{"w8ben": w8ben()}, status: 200}.do(t, env)
	tr := transfer(t, env, creds, user.ID, -5_00)
	addMethod(t, env, creds, user.ID, map[string]any{"platform": "paypal", "email": "ada@example.com"})
	var link payouts.PayoutLink
	call{method: "POST", path: "/v2/payout-links", body: map[string]any{"amount": 1_00}, status: 201}.do(t, env).Decode(t, &link)
	call{method: "DELETE", path: "/v2/payout-links/" + link.ID, status: 200}.do(t, env)
	flow, err := env.Service.CreateFlow(ctx, env.AppID, payouts.CreateFlowRequest{UserID: user.ID,
		Steps: []payouts.Step{{Name: payouts.StepRedirect, RedirectURL: "https://example.com/done"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.CompleteFlowStep(ctx, flow.ID, user.ID, payouts.StepRedirect); err != nil {
		t.Fatal(err)
	}
	// The payee verifies their identity and consents to the background check in a flow's steps.
	checks, err := env.Service.CreateFlow(ctx, env.AppID, payouts.CreateFlowRequest{UserID: user.ID,
		Steps: []payouts.Step{{Name: payouts.StepIDVerification}, {Name: payouts.StepBackgroundCheck}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Service.VerifyIdentity(ctx, env.AppID, user.ID, "6789", "1990-04-01"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.CompleteFlowStep(ctx, checks.ID, user.ID, payouts.StepIDVerification); err != nil {
		t.Fatal(err)
	}
	if err := env.Service.ConsentToBackgroundCheck(ctx, checks.ID, user.ID, service.BackgroundCheckConsent{Consent: true, Name: "Ada Lovelace"}); err != nil {
		t.Fatal(err)
	}
	call{method: "PUT", path: "/v2/apps/" + env.AppID + "/ach-account", body: map[string]any{"account_number": "123456789",
		"routing_number": "021000021", "account_type": "checking"}, status: 200}.do(t, env)

	tests := []struct {
		object string
		want   []payouts.EventType // oldest first
	}{
		{user.ID, []payouts.EventType{payouts.EventUserCreated, payouts.EventUserComplianceUpdated, payouts.EventUserPayoutMethodUpdated,
			payouts.EventUserComplianceUpdated, payouts.EventUserIDVerified, payouts.EventUserBackgroundCheckUpdated}},
		// Made completed at once: a status after its first, so an update in the public API's words.
		{tr.ID, []payouts.EventType{payouts.EventTransferCreated, payouts.EventTransferCompleted, payouts.EventTransferUpdated}},
		// A link whose payee holds it as it is made (delivery by link) is delivered, and sent
		// in the public API's words, at once; each change of status is also an update.
		{link.ID, []payouts.EventType{payouts.EventPayoutLinkCreated, payouts.EventPayoutLinkDelivered, payouts.EventPayoutLinkSent,
			payouts.EventPayoutLinkUpdated, payouts.EventPayoutLinkCanceled, payouts.EventPayoutLinkUpdated}},
		{flow.ID, []payouts.EventType{payouts.EventFlowUpdated, payouts.EventFlowCompleted}},
		{checks.ID, []payouts.EventType{payouts.EventFlowUpdated, payouts.EventFlowUpdated, payouts.EventFlowCompleted}},
		// Its ACH account saved; its wallet moving (the deposit) is told by the transfer's events.
		{env.AppID, []payouts.EventType{payouts.EventAppUpdated}},
	}
	for _, tt := range tests {
		t.Run(string(tt.want[0]), func(t *testing.T) {
			list, err := env.Service.ListEvents(ctx, env.AppID, payouts.Page{}, payouts.EventFilter{ObjectID: tt.object})
			if err != nil {
				t.Fatal(err)
			}
			var got []payouts.EventType
			for i := len(list.Data) - 1; i >= 0; i-- {
				got = append(got, list.Data[i].Type)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEventsOfBatchesAndRequests: a batch writes the events of the transfers it made and
// transfer_batch.completed, and none for an item refused; payout
// requests write created, then approved or rejected.
func TestEventsOfBatchesAndRequests(t *testing.T) {
	t.Parallel()
	env := servicetest.Start(t, frozen()...)
	ctx := context.Background()
	creds := env.Credentials()
	deposit(t, env, creds, 10_00)
	user := createUser(t, env, creds)
	batch, err := env.Service.CreateTransferBatch(ctx, env.AppID, payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{
		{UserID: user.ID, Amount: -1_00},
		{UserID: user.ID, Amount: -1_000_00}, // more than the app has: refused, undone alone
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.ProcessBatches(ctx, 10); err != nil {
		t.Fatal(err)
	}
	req, err := env.Service.CreatePayoutRequest(ctx, env.AppID, payouts.CreatePayoutRequestRequest{Amount: 1_00, UserID: user.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.ReviewPayoutRequest(ctx, env.AppID, req.ID, payouts.ReviewPayoutRequestRequest{Action: payouts.ReviewReject}); err != nil {
		t.Fatal(err)
	}

	count := func(f payouts.EventFilter) int {
		t.Helper()
		list, err := env.Service.ListEvents(ctx, env.AppID, payouts.Page{Limit: 100}, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Data)
	}
	tests := []struct {
		name   string
		filter payouts.EventFilter
		want   int
	}{
		{"batch completed", payouts.EventFilter{Type: payouts.EventTransferBatchCompleted, ObjectID: batch.ID}, 1},
		{"one transfer made, one refused", payouts.EventFilter{Type: payouts.EventTransferCreated}, 2}, // the deposit and the first item
		{"request created", payouts.EventFilter{Type: payouts.EventPayoutRequestCreated, ObjectID: req.ID}, 1},
		{"request rejected", payouts.EventFilter{Type: payouts.EventPayoutRequestRejected, ObjectID: req.ID}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := count(tt.filter); got != tt.want {
				t.Errorf("%d events, want %d", got, tt.want)
			}
		})
	}
}

// TestEventsOfALinkPaidOut: the payout of a link paid at once completing writes
// payout_link.paid_out about the link, and transfer.completed beside payout.completed about the
// payout, as the public API's webhooks name them.
func TestEventsOfALinkPaidOut(t *testing.T) {
	t.Parallel()
	env, creds, user := startWithUser(t, 100_00, frozen()...)
	addMethod(t, env, creds, user.ID, paypalBody)
	var link payouts.PayoutLink
	call{method: "POST", path: "/v2/payouts/send-payout", body: map[string]any{"amount": 10_00, "user_id": user.ID},
		status: http.StatusCreated}.do(t, env).Decode(t, &link)
	if link.TransferID == nil {
		t.Fatalf("send-payout answered %+v, want a link paid at once", link)
	}
	if n := settle(t, env, time.Hour); n != 1 {
		t.Fatalf("settled %d payouts, want 1", n)
	}
	for _, tt := range []struct {
		object string
		want   payouts.EventType
	}{{link.ID, payouts.EventPayoutLinkPaidOut}, {*link.TransferID, payouts.EventTransferCompleted}} {
		list, err := env.Service.ListEvents(context.Background(), env.AppID, payouts.Page{},
			payouts.EventFilter{ObjectID: tt.object, Type: tt.want})
		if err != nil || len(list.Data) != 1 {
			t.Errorf("%s events of %s: %+v, %v; want one", tt.want, tt.object, list, err)
		}
	}
}

// TestWebhookEndpointRefusesIPSpellings: a URL whose host is an IPv4 address spelled other than
// a.b.c.d in decimal is refused with a field error, on create and on update, in production and
// in sandbox mode (which allows loopback, written as such).
func TestWebhookEndpointRefusesIPSpellings(t *testing.T) {
	t.Parallel()
	hosts := []string{"127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.0.0.1.", "127。0。0。1", "１２７.０.０.１", "0x5db8d822"}
	for _, mode := range []struct {
		name       string
		production bool
	}{{"production", true}, {"sandbox", false}} {
		t.Run(mode.name, func(t *testing.T) {
			env := servicetest.Start(t, servicetest.WithConfig(func(c *payoutd.Config) { c.HideSandboxInbox = mode.production }))
			var ep payouts.WebhookEndpoint
			call{method: "POST", path: "/v2/webhook-endpoints", body: map[string]any{"url": "https://hooks.example.com/in"},
				status: http.StatusCreated}.do(t, env).Decode(t, &ep)
			var calls []call
			for _, host := range hosts {
				url := "http://" + host + ":8080/in"
				calls = append(calls,
					call{name: "create " + host, method: "POST", path: "/v2/webhook-endpoints", body: map[string]any{"url": url},
						status: 400, code: payouts.EInvalidInput, field: "url"},
					call{name: "update " + host, method: "PATCH", path: "/v2/webhook-endpoints/" + ep.ID, body: map[string]any{"url": url},
						status: 400, code: payouts.EInvalidInput, field: "url"})
			}
			runCalls(t, env, calls)
			if !mode.production {
				call{method: "PATCH", path: "/v2/webhook-endpoints/" + ep.ID, body: map[string]any{"url": "http://127.0.0.1:8080/in"},
					status: http.StatusOK}.do(t, env)
			}
		})
	}
}
