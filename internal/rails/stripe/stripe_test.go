package stripe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/internal/rails/stripe/stripetest"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/stripemock"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

func TestMain(m *testing.M) { os.Exit(stripemock.Main(m)) }

const (
	transferID = "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
	whsec      = "whsec_test_secret"
)

// achPayout is a payout of $123.45 to a checking account, made a minute before the tests' clock.
func achPayout() service.RailPayout {
	return service.RailPayout{TransferID: transferID, AppID: "app_1", UserID: "user_1", Amount: 12345,
		Created:       time.Date(2026, 11, 24, 11, 59, 0, 0, time.UTC),
		AccountNumber: "000123456789", Method: service.PayoutMethodRecord{RoutingNumber: "110000000",
			AccountType: payouts.AccountChecking, PayoutMethod: payouts.PayoutMethod{ID: "pm_1", Platform: payouts.PlatformACH}}}
}

func newRail(t *testing.T, url string, clock service.Clock) *stripe.Rail {
	t.Helper()
	r, err := stripe.New(stripe.Config{APIKey: "sk_test_123", FinancialAccount: "fa_123", WebhookSecret: whsec, URL: url, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStripeMock sends the rail's requests to stripe-mock, which checks each against Stripe's
// OpenAPI spec and refuses (400) any parameter the spec does not have or a required one missing.
func TestStripeMock(t *testing.T) {
	rail := newRail(t, stripemock.URL(t), testclock.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)))
	ctx := context.Background()
	receipt, err := rail.Submit(ctx, transferID, achPayout())
	if err != nil {
		t.Fatalf("stripe-mock refused the create request: %v", err)
	}
	if !strings.HasPrefix(receipt.ExternalID, "obp_") {
		t.Fatalf("receipt %+v, want an OutboundPayment id", receipt)
	}
	out, err := rail.Outcome(ctx, achPayout(), receipt.ExternalID)
	if err != nil || out.Settled || out.Failed || out.RetryAt.IsZero() {
		t.Fatalf("outcome of stripe-mock's processing payment = %+v, %v; want to ask again", out, err)
	}
	items, err := rail.Items(ctx, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	if err != nil || len(items) == 0 {
		t.Fatalf("Items = %v, %v; want stripe-mock's listed payment", items, err)
	}
}

// recorded answers one request with a body from testdata, after checking what the rail sent.
type recorded struct {
	status int
	file   string
}

func serveRecorded(t *testing.T, check func(*http.Request, url.Values), answer recorded) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, err := url.ParseQuery(string(body))
		if err != nil {
			t.Errorf("request body is not a form: %v", err)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk_test_123" {
			t.Errorf("Authorization %q", got)
		}
		check(r, form)
		b, err := os.ReadFile(filepath.Join("testdata", answer.file))
		if err != nil {
			t.Fatal(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(answer.status)
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// checkCreate asserts the create request's shape: the path, the payout's key as Stripe's
// Idempotency-Key, and every parameter the rail must send.
func checkCreate(t *testing.T) func(*http.Request, url.Values) {
	return func(r *http.Request, form url.Values) {
		t.Helper()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/treasury/outbound_payments" {
			t.Errorf("request %s %s, want POST /v1/treasury/outbound_payments", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Idempotency-Key"); got != transferID {
			t.Errorf("Idempotency-Key %q, want the transfer id", got)
		}
		for k, want := range map[string]string{
			"amount": "12345", "currency": "usd", "financial_account": "fa_123",
			"destination_payment_method_data[type]":                                 "us_bank_account",
			"destination_payment_method_data[us_bank_account][routing_number]":      "110000000",
			"destination_payment_method_data[us_bank_account][account_number]":      "000123456789",
			"destination_payment_method_data[us_bank_account][account_type]":        "checking",
			"destination_payment_method_data[us_bank_account][account_holder_type]": "individual",
			"destination_payment_method_options[us_bank_account][network]":          "ach",
			"metadata[disburse_transfer_id]":                                        transferID,
			"metadata[disburse_app_id]":                                             "app_1",
		} {
			if got := form.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
	}
}

// TestSubmitRecorded replays Stripe's answers to a create: a payment, a refusal that fails the
// payout, and the errors that must leave it to be retried (a key used with other parameters may
// have paid; a wrong API key and Stripe's own failures are not the payout's fault).
func TestSubmitRecorded(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	tests := []struct {
		name     string
		answer   recorded
		rejected bool
		err      bool
	}{
		{"processing", recorded{200, "outbound_payment_processing.json"}, false, false},
		{"invalid request", recorded{400, "error_invalid_request.json"}, true, true},
		{"idempotency error", recorded{400, "error_idempotency.json"}, false, true},
		{"wrong API key", recorded{401, "error_authentication.json"}, false, true},
		{"Stripe failing", recorded{500, "error_api.json"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rail := newRail(t, serveRecorded(t, checkCreate(t), tt.answer), clock)
			receipt, err := rail.Submit(context.Background(), transferID, achPayout())
			var rejection *service.RailRejection
			if (err != nil) != tt.err || errors.As(err, &rejection) != tt.rejected {
				t.Fatalf("Submit error %v; want error %v, rejection %v", err, tt.err, tt.rejected)
			}
			if err == nil && (receipt.ExternalID != "obp_1Pgc7BB7WZ01zgkWxD3fB2p" || !receipt.SettleAt.Equal(time.Unix(1795737600, 0))) {
				t.Errorf("receipt %+v, want the payment's id, asked again at its expected arrival", receipt)
			}
		})
	}
}

// TestOutcomeRecorded replays a retrieve in each status: posted settles, failed fails, returned
// gives the money back (its reason naming the NACHA code), processing is asked again.
func TestOutcomeRecorded(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	tests := []struct {
		file string
		want service.RailOutcome
	}{
		{"outbound_payment_posted.json", service.RailOutcome{Settled: true}},
		{"outbound_payment_failed.json", service.RailOutcome{Failed: true, Reason: "Stripe could not send the ACH payment"}},
		{"outbound_payment_returned.json", service.RailOutcome{Returned: true, Reason: "the receiving bank returned the ACH payment: no such account (R03)"}},
		{"outbound_payment_processing.json", service.RailOutcome{RetryAt: time.Unix(1795737600, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			check := func(r *http.Request, _ url.Values) {
				if r.Method != http.MethodGet || r.URL.Path != "/v1/treasury/outbound_payments/obp_1Pgc7BB7WZ01zgkWxD3fB2p" {
					t.Errorf("request %s %s", r.Method, r.URL.Path)
				}
			}
			rail := newRail(t, serveRecorded(t, check, recorded{200, tt.file}), clock)
			got, err := rail.Outcome(context.Background(), achPayout(), "obp_1Pgc7BB7WZ01zgkWxD3fB2p")
			if err != nil || got.Settled != tt.want.Settled || got.Failed != tt.want.Failed || got.Returned != tt.want.Returned || got.Reason != tt.want.Reason ||
				!got.RetryAt.Equal(tt.want.RetryAt) {
				t.Errorf("Outcome = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestSubmitRefusesOtherMethods: the rail pays bank accounts only, and says so without a call.
func TestSubmitRefusesOtherMethods(t *testing.T) {
	rail := newRail(t, "http://127.0.0.1:1", nil)
	p := achPayout()
	p.Method.Platform, p.AccountNumber = payouts.PlatformPayPal, ""
	var rejection *service.RailRejection
	if _, err := rail.Submit(context.Background(), transferID, p); !errors.As(err, &rejection) {
		t.Fatalf("Submit of a PayPal payout = %v, want a rejection", err)
	}
}

// TestSubmitPastIdempotencyWindow: a payout still submitting a day after it was made (Stripe may
// have forgotten its Idempotency-Key) is looked up among the financial account's payments by
// its metadata before it is created again. Against the double (which forgets its keys, its
// creates checked by stripe-mock): the first payment is found and adopted, never made twice.
// Against stripe-mock itself, whose list holds no payment of ours: the look-up's request is one
// Stripe's spec takes, and the payout is then created.
func TestSubmitPastIdempotencyWindow(t *testing.T) {
	made := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p := achPayout()
	p.Created = made
	t.Run("the double, its key forgotten", func(t *testing.T) {
		clock := testclock.New(made)
		double := stripetest.New(t, stripemock.URL(t), clock.Now)
		rail := newRail(t, double.URL, clock)
		first, err := rail.Submit(context.Background(), transferID, p)
		if err != nil {
			t.Fatal(err)
		}
		double.ForgetKeys()
		clock.Advance(25 * time.Hour)
		again, err := rail.Submit(context.Background(), transferID, p)
		if err != nil || again.ExternalID != first.ExternalID || double.Creations(transferID) != 1 {
			t.Fatalf("Submit a day later = %+v, %v with %d payments made; want the first payment %s, made once",
				again, err, double.Creations(transferID), first.ExternalID)
		}
	})
	t.Run("stripe-mock", func(t *testing.T) {
		rail := newRail(t, stripemock.URL(t), testclock.New(made.Add(25*time.Hour)))
		receipt, err := rail.Submit(context.Background(), transferID, p)
		if err != nil || !strings.HasPrefix(receipt.ExternalID, "obp_") {
			t.Fatalf("Submit = %+v, %v; want stripe-mock's payment", receipt, err)
		}
	})
}

// TestStripeLogsThroughService: what stripe-go logs of a failed request goes to the logger the
// rail is given (payoutd's, in its --log-format), not to stripe-go's own writer on stderr.
func TestStripeLogsThroughService(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	url := serveRecorded(t, func(*http.Request, url.Values) {}, recorded{500, "error_api.json"})
	rail, err := stripe.New(stripe.Config{APIKey: "sk_test_123", FinancialAccount: "fa_123", WebhookSecret: whsec, URL: url,
		Clock: testclock.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rail.Submit(context.Background(), transferID, achPayout()); err == nil {
		t.Fatal("Submit against Stripe failing succeeded")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["level"] != "ERROR" || rec["component"] != "stripe-go" {
			t.Errorf("log line %q, want JSON at level ERROR from stripe-go", line)
		}
	}
	if buf.Len() == 0 {
		t.Error("stripe-go logged nothing through the rail's logger")
	}
}
