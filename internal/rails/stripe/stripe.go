// Package stripe pays US bank accounts by ACH through Stripe: one Treasury OutboundPayment per
// payout, from the platform's financial account to the payee's routing and account number
// (docs/RAILS.md, "ACH through Stripe", says why this object). It implements service.Rail, and lists a
// day's items for reconciliation (service.RailItems).
package stripe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// DefaultPoll is how long a payout Stripe is still processing waits before it is asked again,
// when Stripe gives no expected arrival date still to come.
const DefaultPoll = time.Hour

// Metadata keys the rail writes on every OutboundPayment, so that Stripe's records name our
// payout (reconciliation, webhooks).
const (
	MetaTransfer = "disburse_transfer_id"
	MetaApp      = "disburse_app_id"
)

// Config is what the rail needs, from payoutd's configuration.
type Config struct {
	// APIKey is the secret key (sk_live_..., sk_test_..., or a restricted key allowed to
	// create and read Treasury OutboundPayments).
	APIKey string
	// FinancialAccount is the Treasury financial account payouts are paid from (fa_...).
	FinancialAccount string
	// WebhookSecret is the signing secret (whsec_...) of the Stripe webhook endpoint that sends
	// this account's treasury.outbound_payment events to POST /v2/rail-webhooks/stripe.
	WebhookSecret string
	// StatementDescriptor is what the payee's bank statement shows (up to 10 characters for
	// ACH); empty leaves Stripe's default.
	StatementDescriptor string
	// URL replaces https://api.stripe.com (tests point it at stripe-mock).
	URL string
	// HTTPClient replaces stripe-go's default client; nil keeps it.
	HTTPClient *http.Client
	// Poll is DefaultPoll when zero.
	Poll time.Duration
	// Clock is the wall clock when nil.
	Clock service.Clock
	// Log receives stripe-go's own lines (a request that failed, at level error), so that they
	// come out in payoutd's log format; nil drops them.
	Log *slog.Logger
}

// Rail is the ACH rail on Stripe.
type Rail struct {
	cfg    Config
	client *stripeapi.Client
}

// New returns the rail. stripe-go's own retries are off: a call that fails is the worker's to
// repeat, with the same idempotency key.
func New(cfg Config) (*Rail, error) {
	if cfg.APIKey == "" || cfg.FinancialAccount == "" || cfg.WebhookSecret == "" {
		return nil, errors.New("stripe rail: an API key, a financial account and a webhook signing secret are required")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Clock == nil {
		cfg.Clock = service.SystemClock{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	backend := &stripeapi.BackendConfig{MaxNetworkRetries: stripeapi.Int64(0), HTTPClient: cfg.HTTPClient,
		LeveledLogger: leveledLogger{cfg.Log.With("component", "stripe-go")}}
	if cfg.URL != "" {
		backend.URL = stripeapi.String(cfg.URL)
	}
	backends := &stripeapi.Backends{API: stripeapi.GetBackendWithConfig(stripeapi.APIBackend, backend)}
	return &Rail{cfg: cfg, client: stripeapi.NewClient(cfg.APIKey, stripeapi.WithBackends(backends))}, nil
}

// idempotencyWindow is how long Stripe keeps an Idempotency-Key at least: a key older than that
// may be forgotten, and its request made anew.
const idempotencyWindow = 24 * time.Hour

// lookupSlack widens the look-up of a payment back from the payout's creation, for a clock of
// ours ahead of Stripe's.
const lookupSlack = time.Hour

// leveledLogger is stripe-go's logger interface over a slog.Logger. stripe-go logs errors of
// requests the rail also returns, so its lines at info and below are kept at debug.
type leveledLogger struct{ log *slog.Logger }

func (l leveledLogger) Debugf(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l leveledLogger) Infof(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l leveledLogger) Warnf(format string, v ...any)  { l.log.Warn(fmt.Sprintf(format, v...)) }
func (l leveledLogger) Errorf(format string, v ...any) { l.log.Error(fmt.Sprintf(format, v...)) }

// Submit creates the payout's OutboundPayment with idempotencyKey as Stripe's Idempotency-Key:
// Stripe answers a repeated key with the first payment, so a worker that died after the call
// and a successor calling again pay once. Stripe keeps a key at least 24 hours; the worker calls
// again within minutes (a lease, or the retry delay), but a payout still submitting once that
// window is over since it was made is first looked up among the financial account's payments by
// its metadata (found), and created only if none is its. A request Stripe refuses as invalid (a
// routing number it does not know, a financial account without the money) is a rejection;
// anything else (network, authentication, rate limit, Stripe's own errors, the same key still
// in flight) is left to be retried.
func (r *Rail) Submit(ctx context.Context, idempotencyKey string, p service.RailPayout) (service.RailReceipt, error) {
	m := p.Method
	if m.Platform != payouts.PlatformACH || m.RoutingNumber == "" || p.AccountNumber == "" {
		return service.RailReceipt{}, &service.RailRejection{Reason: "Stripe pays US bank accounts only; the payout method is not one"}
	}
	holder := stripeapi.TreasuryOutboundPaymentDestinationPaymentMethodDetailsUSBankAccountAccountHolderTypeIndividual
	if p.UserID == "" { // an app's withdrawal to its own account
		holder = stripeapi.TreasuryOutboundPaymentDestinationPaymentMethodDetailsUSBankAccountAccountHolderTypeCompany
	}
	params := &stripeapi.TreasuryOutboundPaymentCreateParams{
		Amount:           stripeapi.Int64(int64(p.Amount)),
		Currency:         stripeapi.String(string(stripeapi.CurrencyUSD)),
		FinancialAccount: stripeapi.String(r.cfg.FinancialAccount),
		Description:      stripeapi.String("disburse payout " + p.TransferID),
		DestinationPaymentMethodData: &stripeapi.TreasuryOutboundPaymentCreateDestinationPaymentMethodDataParams{
			Type: stripeapi.String("us_bank_account"),
			USBankAccount: &stripeapi.TreasuryOutboundPaymentCreateDestinationPaymentMethodDataUSBankAccountParams{
				RoutingNumber:     stripeapi.String(m.RoutingNumber),
				AccountNumber:     stripeapi.String(p.AccountNumber),
				AccountType:       stripeapi.String(string(accountType(m.AccountType))),
				AccountHolderType: stripeapi.String(string(holder)),
			},
		},
		DestinationPaymentMethodOptions: &stripeapi.TreasuryOutboundPaymentCreateDestinationPaymentMethodOptionsParams{
			USBankAccount: &stripeapi.TreasuryOutboundPaymentCreateDestinationPaymentMethodOptionsUSBankAccountParams{
				Network: stripeapi.String(string(stripeapi.TreasuryOutboundPaymentDestinationPaymentMethodDetailsUSBankAccountNetworkACH)),
			},
		},
		Metadata: map[string]string{MetaTransfer: p.TransferID, MetaApp: p.AppID},
	}
	if r.cfg.StatementDescriptor != "" {
		params.StatementDescriptor = stripeapi.String(r.cfg.StatementDescriptor)
	}
	params.SetIdempotencyKey(idempotencyKey)
	if now := r.cfg.Clock.Now(); now.Sub(p.Created) >= idempotencyWindow {
		op, err := r.found(ctx, p.TransferID, p.Created.Add(-lookupSlack), now)
		if err != nil {
			return service.RailReceipt{}, err
		}
		if op != nil {
			return service.RailReceipt{ExternalID: op.ID, SettleAt: r.askAgain(op)}, nil
		}
	}
	op, err := r.client.V1TreasuryOutboundPayments.Create(ctx, params)
	if err != nil {
		if reason, ok := refused(err); ok {
			return service.RailReceipt{}, &service.RailRejection{Reason: reason}
		}
		return service.RailReceipt{}, fmt.Errorf("stripe: create outbound payment: %w", err)
	}
	return service.RailReceipt{ExternalID: op.ID, SettleAt: r.askAgain(op)}, nil
}

// found is the financial account's payment for transferID (its metadata names it) created from
// from up to to, or nil. Treasury's list has no metadata filter (and Search does not cover
// OutboundPayments), so the span's payments are read and matched here.
func (r *Rail) found(ctx context.Context, transferID string, from, to time.Time) (*stripeapi.TreasuryOutboundPayment, error) {
	params := &stripeapi.TreasuryOutboundPaymentListParams{FinancialAccount: stripeapi.String(r.cfg.FinancialAccount),
		CreatedRange: &stripeapi.RangeQueryParams{GreaterThanOrEqual: from.Unix(), LesserThanOrEqual: to.Unix()}}
	params.Limit = stripeapi.Int64(100)
	for op, err := range r.client.V1TreasuryOutboundPayments.List(ctx, params) {
		if err != nil {
			return nil, fmt.Errorf("stripe: look up the payment of %s: %w", transferID, err)
		}
		if op.Metadata[MetaTransfer] == transferID {
			return op, nil
		}
	}
	return nil, nil
}

// Outcome reads the OutboundPayment: posted settles the payout; failed and canceled fail it;
// returned (an ACH return, before or after it posted) gives the money back once (settlement.go);
// processing is asked again later.
func (r *Rail) Outcome(ctx context.Context, _ service.RailPayout, externalID string) (service.RailOutcome, error) {
	op, err := r.client.V1TreasuryOutboundPayments.Retrieve(ctx, externalID, nil)
	if err != nil {
		return service.RailOutcome{}, fmt.Errorf("stripe: retrieve outbound payment %s: %w", externalID, err)
	}
	return r.outcome(op), nil
}

// outcome is what op's status means for its payout.
func (r *Rail) outcome(op *stripeapi.TreasuryOutboundPayment) service.RailOutcome {
	switch op.Status {
	case stripeapi.TreasuryOutboundPaymentStatusPosted:
		return service.RailOutcome{Settled: true}
	case stripeapi.TreasuryOutboundPaymentStatusFailed:
		return service.RailOutcome{Failed: true, Reason: "Stripe could not send the ACH payment"}
	case stripeapi.TreasuryOutboundPaymentStatusCanceled:
		return service.RailOutcome{Failed: true, Reason: "the ACH payment was canceled at Stripe"}
	case stripeapi.TreasuryOutboundPaymentStatusReturned:
		return service.RailOutcome{Returned: true, Reason: ReturnReason(op.ReturnedDetails)}
	}
	return service.RailOutcome{RetryAt: r.askAgain(op)}
}

// askAgain is when to ask about op again: its expected arrival, or after Poll.
func (r *Rail) askAgain(op *stripeapi.TreasuryOutboundPayment) time.Time {
	now := r.cfg.Clock.Now()
	if arrival := time.Unix(op.ExpectedArrivalDate, 0); op.ExpectedArrivalDate > 0 && arrival.After(now) {
		return arrival
	}
	return now.Add(r.cfg.Poll)
}

// returnCodes are Stripe's return codes with the NACHA return code each stands for, where the
// correspondence is one to one; Stripe folds the others into its codes.
var returnCodes = map[stripeapi.TreasuryOutboundPaymentReturnedDetailsCode]string{
	stripeapi.TreasuryOutboundPaymentReturnedDetailsCodeAccountClosed:        "the account is closed (R02)",
	stripeapi.TreasuryOutboundPaymentReturnedDetailsCodeNoAccount:            "no such account (R03)",
	stripeapi.TreasuryOutboundPaymentReturnedDetailsCodeInvalidAccountNumber: "the account number is invalid (R04)",
	stripeapi.TreasuryOutboundPaymentReturnedDetailsCodeAccountFrozen:        "the account is frozen (R16)",
}

// ReturnReason is the failure reason of a returned ACH payment.
func ReturnReason(d *stripeapi.TreasuryOutboundPaymentReturnedDetails) string {
	if d == nil {
		return "the receiving bank returned the ACH payment"
	}
	if text, ok := returnCodes[d.Code]; ok {
		return "the receiving bank returned the ACH payment: " + text
	}
	return "the receiving bank returned the ACH payment (" + string(d.Code) + ")"
}

// refused reports whether err is Stripe refusing the request itself (4xx, invalid request), as
// opposed to not answering it: the payout cannot succeed by asking again. An idempotency error
// is never a refusal: the key's first request may have paid.
func refused(err error) (string, bool) {
	var se *stripeapi.Error
	if !errors.As(err, &se) {
		return "", false
	}
	switch {
	case se.Type != stripeapi.ErrorTypeInvalidRequest:
		return "", false
	case se.HTTPStatusCode != http.StatusBadRequest && se.HTTPStatusCode != http.StatusPaymentRequired:
		return "", false
	}
	reason := "Stripe refused the ACH payment"
	if se.Code != "" {
		reason += " (" + string(se.Code) + ")"
	}
	return reason, true
}

func accountType(t payouts.AccountType) stripeapi.TreasuryOutboundPaymentDestinationPaymentMethodDetailsUSBankAccountAccountType {
	if t == payouts.AccountSavings {
		return stripeapi.TreasuryOutboundPaymentDestinationPaymentMethodDetailsUSBankAccountAccountTypeSavings
	}
	return stripeapi.TreasuryOutboundPaymentDestinationPaymentMethodDetailsUSBankAccountAccountTypeChecking
}

// Items lists the financial account's OutboundPayments created from from up to to, for
// reconciliation (service.RailItems), following Stripe's pages.
func (r *Rail) Items(ctx context.Context, from, to time.Time) ([]service.RailItem, error) {
	params := &stripeapi.TreasuryOutboundPaymentListParams{FinancialAccount: stripeapi.String(r.cfg.FinancialAccount),
		CreatedRange: &stripeapi.RangeQueryParams{GreaterThanOrEqual: from.Unix(), LesserThan: to.Unix()}}
	params.Limit = stripeapi.Int64(100)
	var items []service.RailItem
	for op, err := range r.client.V1TreasuryOutboundPayments.List(ctx, params) {
		if err != nil {
			return nil, fmt.Errorf("stripe: list outbound payments: %w", err)
		}
		items = append(items, service.RailItem{ExternalID: op.ID, TransferID: op.Metadata[MetaTransfer],
			AppID: op.Metadata[MetaApp], Amount: payouts.Money(op.Amount), Status: status(op.Status),
			Created: time.Unix(op.Created, 0)})
	}
	return items, nil
}

// status is op's status in our words.
func status(s stripeapi.TreasuryOutboundPaymentStatus) payouts.TransferStatus {
	switch s {
	case stripeapi.TreasuryOutboundPaymentStatusPosted:
		return payouts.TransferCompleted
	case stripeapi.TreasuryOutboundPaymentStatusProcessing:
		return payouts.TransferPending
	}
	return payouts.TransferFailed
}
