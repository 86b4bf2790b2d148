package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// TestRequests checks what every method sends: method, path under the base URL's prefix, query,
// credentials and headers, and a JSON body; and that the idempotent writes carry a key.
func TestRequests(t *testing.T) {
	ctx := context.Background()
	const uid = "2c3b5d5e-8f1a-4b6e-9d6a-3f0e7c1a2b44"
	platform := payouts.PlatformPayPal
	tests := []struct {
		name     string
		call     func(*client.Client) error
		answer   string
		method   string
		path     string
		query    string
		bodyHas  []string // substrings of the JSON body
		keyed    bool     // the body must carry an idempotency key
		givenKey string   // the key the caller gave, which must be kept
	}{
		{name: "CreateUser", answer: "user.json", method: "POST", path: "/api/v2/users",
			call: func(c *client.Client) error {
				_, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Ada", LastName: "L", Email: "a@b.co",
					CountryCode: "1", PhoneNumber: "4155550100", Metadata: json.RawMessage(`{"k":1}`)})
				return err
			},
			bodyHas: []string{`"first_name":"Ada"`, `"country_code":"1"`, `"metadata":{"k":1}`}},
		{name: "GetUser", answer: "user.json", method: "GET", path: "/api/v2/users/" + uid,
			call: func(c *client.Client) error { _, err := c.GetUser(ctx, uid); return err }},
		{name: "ListUsers", answer: "users.json", method: "GET", path: "/api/v2/users",
			query: "limit=5&search=ada+l&starting_after=" + uid + "&status=verified",
			call: func(c *client.Client) error {
				_, err := c.ListUsers(ctx, payouts.Page{Limit: 5, StartingAfter: uid},
					payouts.UserFilter{Status: payouts.UserVerified, Search: "ada l"})
				return err
			}},
		{name: "UpdateUser", answer: "user.json", method: "PATCH", path: "/api/v2/users/" + uid,
			call: func(c *client.Client) error {
				_, err := c.UpdateUser(ctx, uid, payouts.UpdateUserRequest{DefaultPayoutMethod: &platform})
				return err
			},
			bodyHas: []string{`"default_payout_method":"paypal"`}},
		{name: "DeleteUser", answer: "user.json", method: "DELETE", path: "/api/v2/users/" + uid,
			call: func(c *client.Client) error { _, err := c.DeleteUser(ctx, uid); return err }},
		{name: "SendVerificationToken", method: "POST", path: "/api/v2/users/" + uid + "/send-verification-token",
			call: func(c *client.Client) error {
				return c.SendVerificationToken(ctx, uid, payouts.SendVerificationTokenRequest{UseVoice: true})
			},
			bodyHas: []string{`"use_voice":true`}},
		{name: "VerifyUser", method: "POST", path: "/api/v2/users/" + uid + "/verify",
			call: func(c *client.Client) error {
				return c.VerifyUser(ctx, uid, payouts.VerifyUserRequest{Token: "123456"})
			},
			bodyHas: []string{`"token":"123456"`}},
		{name: "AddPayoutMethod", answer: "payout_method.json", method: "PUT", path: "/api/v2/users/" + uid + "/payout-methods",
			call: func(c *client.Client) error {
				_, err := c.AddPayoutMethod(ctx, uid, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
					RoutingNumber: "011000015", AccountNumber: "123456789", AccountType: payouts.AccountChecking, IsDefault: true})
				return err
			},
			bodyHas: []string{`"platform":"ach"`, `"routing_number":"011000015"`, `"account_type":"checking"`, `"is_default":true`}},
		{name: "ListPayoutMethods", answer: "payout_methods.json", method: "GET", path: "/api/v2/users/" + uid + "/payout-methods",
			call: func(c *client.Client) error { _, err := c.ListPayoutMethods(ctx, uid); return err }},
		{name: "SubmitCompliance", method: "PUT", path: "/api/v2/users/" + uid + "/compliance",
			call: func(c *client.Client) error {
				return c.SubmitCompliance(ctx, uid, payouts.ComplianceRequest{W9: &payouts.W9{EntityType: payouts.EntityIndividual, TIN: "123456789"}})
			},
			bodyHas: []string{`"w9":{"entity_type":"individual"`, `"tin":"123456789"`}},
		{name: "CreateTransfer", answer: "transfer.json", method: "POST", path: "/api/v2/transfers", keyed: true,
			call: func(c *client.Client) error {
				_, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: uid, Amount: -500})
				return err
			},
			bodyHas: []string{`"amount":-500`, `"user_id":"` + uid + `"`}},
		{name: "CreateTransfer with a key", answer: "transfer.json", method: "POST", path: "/api/v2/transfers",
			keyed: true, givenKey: "9f0e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c",
			call: func(c *client.Client) error {
				_, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: uid, Amount: -500,
					IdempotencyKey: "9f0e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c"})
				return err
			}},
		{name: "GetTransfer", answer: "transfer.json", method: "GET", path: "/api/v2/transfers/t%2F1",
			call: func(c *client.Client) error { _, err := c.GetTransfer(ctx, "t/1"); return err }},
		{name: "ListTransfers", answer: "transfers.json", method: "GET", path: "/api/v2/transfers",
			query: "ending_before=x&status=pending&type=payout&user_id=" + uid,
			call: func(c *client.Client) error {
				_, err := c.ListTransfers(ctx, payouts.Page{EndingBefore: "x"},
					payouts.TransferFilter{UserID: uid, Type: payouts.TransferPayout, Status: payouts.TransferPending})
				return err
			}},
		{name: "ReviewTransfer", answer: "transfer.json", method: "POST", path: "/api/v2/transfers/t1/review",
			call: func(c *client.Client) error {
				_, err := c.ReviewTransfer(ctx, "t1", payouts.ReviewTransferRequest{Action: payouts.ReviewReject, Reason: "name mismatch"})
				return err
			},
			bodyHas: []string{`"action":"reject"`, `"reason":"name mismatch"`}},
		{name: "GetTransaction", answer: "transaction.json", method: "GET", path: "/api/v2/transactions/42",
			call: func(c *client.Client) error { _, err := c.GetTransaction(ctx, 42); return err }},
		{name: "ListTransactions", answer: "transactions.json", method: "GET", path: "/api/v2/transactions",
			query: "limit=100&user_id=" + uid,
			call: func(c *client.Client) error {
				_, err := c.ListTransactions(ctx, payouts.Page{Limit: 100}, payouts.TransactionFilter{UserID: uid})
				return err
			}},
		{name: "CreatePayout", answer: "transfer.json", method: "POST", path: "/api/v2/payouts", keyed: true,
			call: func(c *client.Client) error {
				_, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: uid, Amount: 2500,
					Platform: payouts.PlatformDefault, Fund: true})
				return err
			},
			bodyHas: []string{`"platform":"default"`, `"fund":true`}},
		{name: "CreatePayoutLink", answer: "payout_link.json", method: "POST", path: "/api/v2/payout-links", keyed: true,
			call: func(c *client.Client) error {
				_, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 5000,
					Delivery: &payouts.Delivery{Method: payouts.DeliveryLink}, AdditionalSteps: []payouts.Step{{Name: "compliance"}}})
				return err
			},
			bodyHas: []string{`"amount":5000`, `"delivery":{"method":"link"}`, `"additional_steps":["compliance"]`}},
		{name: "GetPayoutLink", answer: "payout_link.json", method: "GET", path: "/api/v2/payout-links/l1",
			call: func(c *client.Client) error { _, err := c.GetPayoutLink(ctx, "l1"); return err }},
		{name: "ListPayoutLinks", answer: "payout_links.json", method: "GET", path: "/api/v2/payout-links",
			query: "search=grace&status=claimed",
			call: func(c *client.Client) error {
				_, err := c.ListPayoutLinks(ctx, payouts.Page{}, payouts.PayoutLinkFilter{Status: payouts.LinkClaimed, Search: "grace"})
				return err
			}},
		{name: "CancelPayoutLink", answer: "payout_link.json", method: "DELETE", path: "/api/v2/payout-links/l1",
			call: func(c *client.Client) error { _, err := c.CancelPayoutLink(ctx, "l1"); return err }},
		{name: "CreateFlow", answer: "flow.json", method: "POST", path: "/api/v2/flows",
			call: func(c *client.Client) error {
				_, err := c.CreateFlow(ctx, payouts.CreateFlowRequest{UserID: uid,
					Steps: []payouts.Step{{Name: "compliance"}, {Name: "redirect", RedirectURL: "https://example.com/done"}}})
				return err
			},
			bodyHas: []string{`"steps":["compliance",{"name":"redirect","redirect_url":"https://example.com/done"}]`}},
		{name: "GetFlow", answer: "flow.json", method: "GET", path: "/api/v2/flows/f1",
			call: func(c *client.Client) error { _, err := c.GetFlow(ctx, "f1"); return err }},
		{name: "ListFlows", answer: "flows.json", method: "GET", path: "/api/v2/flows", query: "limit=3",
			call: func(c *client.Client) error {
				_, err := c.ListFlows(ctx, payouts.Page{Limit: 3}, payouts.FlowFilter{})
				return err
			}},
		{name: "GetApp", answer: "app.json", method: "GET", path: "/api/v2/apps/a1",
			call: func(c *client.Client) error { _, err := c.GetApp(ctx, "a1"); return err }},
		{name: "GetAppStats", answer: "app_stats.json", method: "GET", path: "/api/v2/apps/a1/stats", query: "days=7",
			call: func(c *client.Client) error { _, err := c.GetAppStats(ctx, "a1", 7, ""); return err }},
		{name: "GetAppStats in a zone", answer: "app_stats.json", method: "GET", path: "/api/v2/apps/a1/stats", query: "days=30&zone=America%2FNew_York",
			call: func(c *client.Client) error { _, err := c.GetAppStats(ctx, "a1", 30, "America/New_York"); return err }},
		{name: "GetAppStats default window", answer: "app_stats.json", method: "GET", path: "/api/v2/apps/a1/stats",
			call: func(c *client.Client) error { _, err := c.GetAppStats(ctx, "a1", 0, ""); return err }},
		{name: "Deposit", answer: "transfer.json", method: "POST", path: "/api/v2/apps/a1/deposit", keyed: true,
			call: func(c *client.Client) error {
				_, err := c.Deposit(ctx, "a1", payouts.DepositRequest{Amount: 100000})
				return err
			},
			bodyHas: []string{`"amount":100000`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := ""
			if tt.answer != "" {
				body = sample(t, tt.answer)
			}
			c, got := sampleServer(t, http.StatusOK, body)
			if err := tt.call(c); err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := got()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != tt.method || r.Path != tt.path || r.RawQuery != tt.query {
				t.Errorf("sent %s %s?%s, want %s %s?%s", r.Method, r.Path, r.RawQuery, tt.method, tt.path, tt.query)
			}
			if id, key, ok := basicAuth(r.Header); !ok || id != "client-1" || key != "key-1" {
				t.Errorf("basic auth = %q %q %v", id, key, ok)
			}
			if ua := r.Header.Get("User-Agent"); ua != client.DefaultUserAgent {
				t.Errorf("User-Agent = %q", ua)
			}
			if tt.method == "GET" || tt.method == "DELETE" {
				if r.Body != "" {
					t.Errorf("%s carries a body: %s", tt.method, r.Body)
				}
				return
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			for _, s := range tt.bodyHas {
				if !strings.Contains(r.Body, s) {
					t.Errorf("body %s lacks %s", r.Body, s)
				}
			}
			var keyed struct {
				IdempotencyKey *string `json:"idempotency_key"`
			}
			if err := json.Unmarshal([]byte(r.Body), &keyed); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			switch {
			case !tt.keyed && keyed.IdempotencyKey != nil:
				t.Errorf("unexpected idempotency key in %s", r.Body)
			case tt.keyed && (keyed.IdempotencyKey == nil || !payouts.ValidID(*keyed.IdempotencyKey)):
				t.Errorf("idempotency key missing or not a UUID in %s", r.Body)
			case tt.givenKey != "" && *keyed.IdempotencyKey != tt.givenKey:
				t.Errorf("idempotency key = %s, want the caller's %s", *keyed.IdempotencyKey, tt.givenKey)
			}
		})
	}
}

func basicAuth(h http.Header) (string, string, bool) {
	r := http.Request{Header: h}
	return r.BasicAuth()
}
