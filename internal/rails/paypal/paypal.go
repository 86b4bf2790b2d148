// Package paypal pays PayPal and Venmo payees through the PayPal Payouts API: one payout batch
// of one item per payout, and the provider's webhooks verified by PayPal's own
// verify-webhook-signature call. It is a small client written from the public Payouts
// reference; only the calls named here are used:
//
//	POST /v1/oauth2/token                          client credentials -> a bearer token, cached until it expires
//	POST /v1/payments/payouts                      create a batch (PayPal-Request-Id and sender_batch_id from our key)
//	GET  /v1/payments/payouts/{payout_batch_id}    the batch and its item's transaction_status
//	POST /v1/notifications/verify-webhook-signature  is this webhook PayPal's?
//	GET  /v1/reporting/transactions                the account's transactions of a day, for reconciliation
package paypal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// Base URLs of the PayPal REST API.
const (
	SandboxBase = "https://api-m.sandbox.paypal.com"
	LiveBase    = "https://api-m.paypal.com"
)

// Platforms are the platforms a PayPal account pays out on.
var Platforms = []payouts.Platform{payouts.PlatformPayPal, payouts.PlatformVenmo}

// pollAfter is how long after a submission, and between polls of a payout still under way, the
// worker asks PayPal again; unclaimed and held items wait longer, since they last days.
const (
	pollAfter     = time.Minute
	pollUnclaimed = 6 * time.Hour
)

// Config is a PayPal REST app's credentials and where its API is.
type Config struct {
	BaseURL      string // SandboxBase or LiveBase
	ClientID     string
	ClientSecret string
	WebhookID    string       // the id PayPal gave the webhook subscription; empty: webhooks refused
	HTTP         *http.Client // nil: a client with a 30 s timeout
	Clock        service.Clock
}

// LogValue never shows the secret.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("base_url", c.BaseURL), slog.String("client_id", c.ClientID),
		slog.Bool("webhooks", c.WebhookID != ""))
}

// Client is one PayPal REST app: its rails for PayPal and Venmo and its webhooks.
type Client struct {
	cfg Config

	mu      sync.Mutex
	token   string
	expires time.Time
}

// New checks cfg and returns its client.
func New(cfg Config) (*Client, error) {
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("paypal: the client id and secret are required")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("paypal: base URL %q: want an https:// origin", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Clock == nil {
		cfg.Clock = service.SystemClock{}
	}
	return &Client{cfg: cfg}, nil
}

// Rails are the client's rails, one per platform of Platforms.
func (c *Client) Rails() map[payouts.Platform]service.Rail {
	rails := map[payouts.Platform]service.Rail{}
	for _, p := range Platforms {
		rails[p] = &Rail{client: c, platform: p}
	}
	return rails
}

// Rail pays out on one platform (PayPal or Venmo) through the client.
type Rail struct {
	client   *Client
	platform payouts.Platform
}

// money is the Payouts API's amount.
type money struct {
	Value    string `json:"value"`
	Currency string `json:"currency"`
}

type senderBatchHeader struct {
	SenderBatchID string `json:"sender_batch_id"`
	EmailSubject  string `json:"email_subject,omitempty"`
}

type payoutItem struct {
	RecipientType   string `json:"recipient_type"`
	Amount          money  `json:"amount"`
	Note            string `json:"note,omitempty"`
	SenderItemID    string `json:"sender_item_id"`
	Receiver        string `json:"receiver"`
	RecipientWallet string `json:"recipient_wallet"`
}

type createPayoutRequest struct {
	SenderBatchHeader senderBatchHeader `json:"sender_batch_header"`
	Items             []payoutItem      `json:"items"`
}

type batchHeader struct {
	PayoutBatchID string `json:"payout_batch_id"`
	BatchStatus   string `json:"batch_status"`
}

// item is a payout item as PayPal reports it, in a batch or a webhook's resource.
type item struct {
	PayoutItemID      string     `json:"payout_item_id"`
	TransactionID     string     `json:"transaction_id"` // once PayPal processed the item: its id in Transaction Search
	TransactionStatus string     `json:"transaction_status"`
	PayoutBatchID     string     `json:"payout_batch_id"`
	PayoutItem        payoutItem `json:"payout_item"`
	Errors            *struct {
		Name    string `json:"name"`
		Message string `json:"message"`
	} `json:"errors,omitempty"`
}

type batch struct {
	BatchHeader batchHeader `json:"batch_header"`
	Items       []item      `json:"items"`
}

// apiError is PayPal's error body.
type apiError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	DebugID string `json:"debug_id"`
	Details []struct {
		Field string `json:"field"`
		Issue string `json:"issue"`
	} `json:"details"`
	Links []struct {
		Href string `json:"href"`
		Rel  string `json:"rel"`
	} `json:"links"`
}

// duplicateBatch reports whether e is PayPal refusing a sender_batch_id used in the last 30
// days, and the payout_batch_id of the original batch its HATEOAS link names ("" when it names
// none). Only the id is taken from the link: the batch is read from the configured base URL,
// never from a host an answer names.
func (e *apiError) duplicateBatch() (dup bool, batchID string) {
	if e == nil || e.Name != "USER_BUSINESS_ERROR" {
		return false, ""
	}
	for _, d := range e.Details {
		dup = dup || d.Field == "SENDER_BATCH_ID"
	}
	if !dup {
		return false, ""
	}
	for _, l := range e.Links {
		u, err := url.Parse(l.Href)
		if err != nil {
			continue
		}
		if id, ok := strings.CutPrefix(u.Path, "/v1/payments/payouts/"); ok && id != "" && !strings.Contains(id, "/") {
			return true, id
		}
	}
	return true, ""
}

// SenderBatchID is the batch id of a payout submitted under idempotencyKey: PayPal refuses a
// second batch with an id used in the last 30 days, so a payout submitted again is never paid
// twice even once PayPal-Request-Id is forgotten.
func SenderBatchID(idempotencyKey string) string { return "disburse-" + idempotencyKey }

// Submit creates a batch of one item for the payout. A validation error (the receiver is not one
// PayPal can pay) rejects it. PayPal refusing the batch id as a duplicate means an earlier
// attempt made the batch and its answer was lost (PayPal keeps PayPal-Request-Id for hours
// only): the original batch its answer links to is read and adopted when it holds this payout,
// and without such a batch the outcome is unresolved (service.RailUnresolved), never submitted
// again. Anything else is retried under the same key: the same sender_batch_id, which PayPal
// never pays twice.
func (r *Rail) Submit(ctx context.Context, idempotencyKey string, p service.RailPayout) (service.RailReceipt, error) {
	recipientType, receiver, problem := recipient(p.Method)
	if problem != "" {
		return service.RailReceipt{}, &service.RailRejection{Reason: problem}
	}
	req := createPayoutRequest{
		SenderBatchHeader: senderBatchHeader{SenderBatchID: SenderBatchID(idempotencyKey), EmailSubject: "You have a payout"},
		Items: []payoutItem{{RecipientType: recipientType, Amount: money{Value: p.Amount.Decimal(), Currency: "USD"},
			Note: note(p), SenderItemID: p.TransferID, Receiver: receiver, RecipientWallet: wallet(r.platform)}},
	}
	var created batch
	status, apiErr, err := r.client.call(ctx, http.MethodPost, "/v1/payments/payouts", idempotencyKey, req, &created)
	if dup, batchID := apiErr.duplicateBatch(); status == http.StatusBadRequest && dup {
		return r.adopt(ctx, p, batchID)
	}
	switch {
	case err != nil:
		return service.RailReceipt{}, err
	case status == http.StatusBadRequest && apiErr.Name == "VALIDATION_ERROR":
		return service.RailReceipt{}, &service.RailRejection{Reason: "PayPal refused the payout: " + apiErr.describe()}
	case status != http.StatusCreated && status != http.StatusOK:
		return service.RailReceipt{}, fmt.Errorf("paypal: create payout: %d %s", status, apiErr.describe())
	case created.BatchHeader.PayoutBatchID == "":
		return service.RailReceipt{}, errors.New("paypal: create payout: no payout_batch_id in the answer")
	}
	return service.RailReceipt{ExternalID: created.BatchHeader.PayoutBatchID, SettleAt: r.client.cfg.Clock.Now().Add(pollAfter)}, nil
}

// adopt reads the original batch of a duplicate sender_batch_id and takes it as the payout's
// receipt when its item is this payout. A batch that cannot be named, or whose items are
// another payout's, leaves the outcome unresolved for an operator; a batch that cannot be read
// now is an error, and the next attempt reads it again.
func (r *Rail) adopt(ctx context.Context, p service.RailPayout, batchID string) (service.RailReceipt, error) {
	if batchID == "" {
		return service.RailReceipt{}, &service.RailUnresolved{Reason: "PayPal has a batch with this payout's sender_batch_id " +
			"but named no original batch to read; find it in PayPal's activity before paying again"}
	}
	b, err := r.client.batch(ctx, batchID)
	if err != nil {
		return service.RailReceipt{}, err
	}
	if _, ok := b.itemOf(p.TransferID); !ok {
		return service.RailReceipt{}, &service.RailUnresolved{Reason: "PayPal's batch " + batchID +
			" with this payout's sender_batch_id does not list this payout"}
	}
	return service.RailReceipt{ExternalID: batchID, SettleAt: r.client.cfg.Clock.Now().Add(pollAfter)}, nil
}

// batch reads a payout batch.
func (c *Client) batch(ctx context.Context, batchID string) (batch, error) {
	var b batch
	status, apiErr, err := c.call(ctx, http.MethodGet, "/v1/payments/payouts/"+url.PathEscape(batchID), "", nil, &b)
	if err != nil {
		return batch{}, err
	}
	if status != http.StatusOK {
		return batch{}, fmt.Errorf("paypal: get payout batch %s: %d %s", batchID, status, apiErr.describe())
	}
	return b, nil
}

// itemOf is the batch's item whose sender_item_id is transferID.
func (b batch) itemOf(transferID string) (item, bool) {
	for _, it := range b.Items {
		if it.PayoutItem.SenderItemID == transferID {
			return it, true
		}
	}
	return item{}, false
}

// Outcome reads the payout's batch and maps its item's status. A batch whose items are listed
// without this payout is not ours to wait on: its outcome is unresolved.
func (r *Rail) Outcome(ctx context.Context, p service.RailPayout, externalID string) (service.RailOutcome, error) {
	b, err := r.client.batch(ctx, externalID)
	if err != nil {
		return service.RailOutcome{}, err
	}
	if it, ok := b.itemOf(p.TransferID); ok {
		return outcomeOf(it, r.client.cfg.Clock.Now()), nil
	}
	if len(b.Items) > 0 {
		return service.RailOutcome{}, &service.RailUnresolved{Reason: "PayPal's batch " + externalID + " does not list this payout"}
	}
	return service.RailOutcome{RetryAt: r.client.cfg.Clock.Now().Add(pollAfter)}, nil // items not listed yet
}

// outcomeOf maps a payout item's transaction_status to our outcome, with the item's
// transaction id as the payout's reference (Transaction Search lists it by that id alone).
func outcomeOf(it item, now time.Time) service.RailOutcome {
	out := statusOutcome(it, now)
	out.Reference = it.TransactionID
	return out
}

// statusOutcome maps a payout item's transaction_status. UNCLAIMED is not an end: the recipient
// has 30 days to claim it, after which PayPal returns it (RETURNED), so it waits, and so do
// PENDING, ONHOLD or ON_HOLD (PayPal reviewing it) and any status not known here.
func statusOutcome(it item, now time.Time) service.RailOutcome {
	why := ""
	if it.Errors != nil {
		why = ": " + strings.TrimSpace(it.Errors.Name+" "+it.Errors.Message)
	}
	switch it.TransactionStatus {
	case "SUCCESS":
		return service.RailOutcome{Settled: true}
	case "RETURNED":
		return service.RailOutcome{Returned: true, Reason: "PayPal returned the payout: it was not claimed within 30 days" + why}
	case "REFUNDED":
		return service.RailOutcome{Returned: true, Reason: "PayPal refunded the payout: the recipient refunded it to the sender" + why}
	case "REVERSED":
		return service.RailOutcome{Returned: true, Reason: "PayPal reversed the payout" + why}
	case "FAILED":
		return service.RailOutcome{Failed: true, Reason: "PayPal failed the payout" + why}
	case "DENIED":
		return service.RailOutcome{Failed: true, Reason: "PayPal denied the payout" + why}
	case "BLOCKED":
		return service.RailOutcome{Failed: true, Reason: "PayPal blocked the payout" + why}
	case "UNCLAIMED", "ONHOLD", "ON_HOLD": // the OpenAPI enum writes ONHOLD, the status table ON_HOLD
		return service.RailOutcome{RetryAt: now.Add(pollUnclaimed)}
	default: // PENDING, or a status PayPal adds later
		return service.RailOutcome{RetryAt: now.Add(pollAfter)}
	}
}

// noteMax is the reference's limit of an item's note (with the batch's, which we send none of).
const noteMax = 1000

// note is the item's note, which PayPal shows the payee and Venmo requires: the payout's memo,
// else who pays.
func note(p service.RailPayout) string {
	n := strings.TrimSpace(p.Memo)
	switch {
	case n == "" && p.AppName != "":
		n = "A payout from " + p.AppName
	case n == "":
		n = "You have a payout"
	}
	if len(n) > noteMax {
		n = strings.ToValidUTF8(n[:noteMax], "")
	}
	return n
}

// recipient is how PayPal is told who to pay: an email, else a phone, else a Venmo handle; or
// why it cannot be. A phone is a Venmo method's, which must be a US mobile number (PayPal's
// reference), sent as its ten digits; one saved before numbers kept their country
// (payouts.StoredVenmoPhone) is refused until it is saved again, never guessed.
func recipient(m service.PayoutMethodRecord) (recipientType, receiver, problem string) {
	switch {
	case m.Email != "":
		return "EMAIL", m.Email, ""
	case m.PhoneNumber != "":
		phone, err := payouts.StoredVenmoPhone(m.PhoneNumber)
		if err != nil {
			return "", "", "the Venmo phone number " + m.PhoneNumber + " " + err.Error()
		}
		return "PHONE", phone.PhoneNumber, ""
	case m.Handle != "" && m.Platform == payouts.PlatformVenmo:
		return "USER_HANDLE", m.Handle, ""
	}
	return "", "", "the " + m.Platform.Label() + " method has no email, phone or handle PayPal can pay"
}

// wallet is the item's recipient_wallet for a platform.
func wallet(p payouts.Platform) string {
	if p == payouts.PlatformVenmo {
		return "VENMO"
	}
	return "PAYPAL"
}

// platformOf is the platform of an item's recipient_wallet (PAYPAL when absent).
func platformOf(recipientWallet string) payouts.Platform {
	if recipientWallet == "VENMO" {
		return payouts.PlatformVenmo
	}
	return payouts.PlatformPayPal
}

func (e *apiError) describe() string {
	if e == nil {
		return ""
	}
	s := e.Name
	if e.Message != "" {
		s += " " + e.Message
	}
	for _, d := range e.Details {
		s += " (" + d.Field + ": " + d.Issue + ")"
	}
	if e.DebugID != "" {
		s += " debug_id " + e.DebugID
	}
	return strings.TrimSpace(s)
}

// call sends one authorized JSON request and decodes a 2xx answer into out; any other answer's
// error body is returned with its status. A 401 forgets the cached token, so the next call asks
// for a new one. requestID, when set, is PayPal-Request-Id: PayPal answers a repeated id with the
// first answer.
func (c *Client) call(ctx context.Context, method, path, requestID string, in, out any) (int, *apiError, error) {
	token, err := c.accessToken(ctx)
	if err != nil {
		return 0, nil, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.cfg.BaseURL+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if requestID != "" {
		req.Header.Set("PayPal-Request-Id", requestID)
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("paypal: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("paypal: %s %s: %w", method, path, err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		c.forgetToken(token)
	}
	if resp.StatusCode/100 != 2 {
		var e apiError
		_ = json.Unmarshal(raw, &e) // a body that is not PayPal's error leaves it empty
		return resp.StatusCode, &e, nil
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return 0, nil, fmt.Errorf("paypal: %s %s: decoding the answer: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil, nil
}

// tokenMargin is how long before its expiry a token is asked for again, so that none expires on
// its way.
const tokenMargin = time.Minute

// accessToken is the cached bearer token, or a new one from the client credentials.
func (c *Client) accessToken(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.cfg.Clock.Now()
	if c.token != "" && now.Before(c.expires) {
		return c.token, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/v1/oauth2/token",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(c.cfg.ClientID, c.cfg.ClientSecret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return "", fmt.Errorf("paypal: token: %w", err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("paypal: token: %d (check PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET)", resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tok); err != nil || tok.AccessToken == "" {
		return "", errors.New("paypal: token: no access_token in the answer")
	}
	c.token, c.expires = tok.AccessToken, now.Add(time.Duration(tok.ExpiresIn)*time.Second-tokenMargin)
	return c.token, nil
}

// forgetToken drops token if it is still the cached one.
func (c *Client) forgetToken(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token == token {
		c.token = ""
	}
}

// Webhook headers PayPal signs a notification with.
var webhookHeaders = []struct{ header, field string }{
	{"Paypal-Auth-Algo", "auth_algo"}, {"Paypal-Cert-Url", "cert_url"}, {"Paypal-Transmission-Id", "transmission_id"},
	{"Paypal-Transmission-Sig", "transmission_sig"}, {"Paypal-Transmission-Time", "transmission_time"},
}

// event is a webhook's body, as far as a payout item's events need it.
type event struct {
	ID           string          `json:"id"`
	EventType    string          `json:"event_type"`
	ResourceType string          `json:"resource_type"`
	Resource     json.RawMessage `json:"resource"`
}

// Notification verifies a webhook with PayPal (verify-webhook-signature, against the configured
// webhook id) and reports the outcome of a payout item's event (PAYMENT.PAYOUTS-ITEM.*). Each
// verification is a call to PayPal, which anyone may cause by posting to the endpoint, so it is
// made last, once admit has allowed it (the service's throttle), and only for a notification that
// could be PayPal's and matter: every signature header present, a certificate URL on PayPal's own
// host, a body that is a PayPal event, and an event of a payout item of ours. Any other event
// reports nothing, and an item that is not ours (a payout made outside disburse on the same
// account, with no sender_item_id or another) is ignored (service.RailIgnored), neither needing
// verification.
func (c *Client) Notification(ctx context.Context, header http.Header, body []byte, admit service.AdmitCall) ([]service.RailNotice, error) {
	if c.cfg.WebhookID == "" {
		return nil, &service.RailUnverified{Reason: "no PAYPAL_WEBHOOK_ID is configured"}
	}
	verify := map[string]any{"webhook_id": c.cfg.WebhookID, "webhook_event": json.RawMessage(body)}
	for _, h := range webhookHeaders {
		v := header.Get(h.header)
		if v == "" {
			return nil, &service.RailUnverified{Reason: "no " + h.header + " header"}
		}
		verify[h.field] = v
	}
	if !paypalCertURL(header.Get("Paypal-Cert-Url")) {
		return nil, &service.RailUnverified{Reason: "the certificate URL is not on PayPal's host"}
	}
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" || ev.EventType == "" {
		return nil, &service.RailUnverified{Reason: "the body is not a PayPal event"}
	}
	if !strings.HasPrefix(ev.EventType, "PAYMENT.PAYOUTS-ITEM.") {
		return nil, nil
	}
	var it item
	if err := json.Unmarshal(ev.Resource, &it); err != nil {
		return nil, &service.RailUnverified{Reason: "event " + ev.ID + " has no payout item"}
	}
	if !payouts.ValidID(it.PayoutItem.SenderItemID) {
		// Every item we send is named by its transfer id: one with no sender_item_id or another
		// was made outside disburse on the same account.
		return nil, &service.RailIgnored{Reason: "event " + ev.ID + " is of payout item " + it.PayoutItemID +
			", not one of ours (sender_item_id " + strconv.Quote(it.PayoutItem.SenderItemID) + ")"}
	}
	if err := admit(ctx); err != nil {
		return nil, err
	}
	var verdict struct {
		VerificationStatus string `json:"verification_status"`
	}
	status, apiErr, err := c.call(ctx, http.MethodPost, "/v1/notifications/verify-webhook-signature", "", verify, &verdict)
	switch {
	case err != nil:
		return nil, err
	case status == http.StatusBadRequest:
		return nil, &service.RailUnverified{Reason: "PayPal refused to verify it: " + apiErr.describe()}
	case status != http.StatusOK:
		return nil, fmt.Errorf("paypal: verify webhook: %d %s", status, apiErr.describe())
	case verdict.VerificationStatus != "SUCCESS":
		return nil, &service.RailUnverified{Reason: "PayPal's verification said " + verdict.VerificationStatus}
	}
	return []service.RailNotice{{Platform: platformOf(it.PayoutItem.RecipientWallet), Report: service.RailReport{
		TransferID: it.PayoutItem.SenderItemID, ExternalID: it.PayoutBatchID, Outcome: outcomeOf(it, c.cfg.Clock.Now())}}}, nil
}

// paypalCertURL reports whether a notification's Paypal-Cert-Url is https on PayPal's host
// (api.paypal.com, api.sandbox.paypal.com, ...), as every notification PayPal sends names it.
func paypalCertURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || (u.Port() != "" && u.Port() != "443") {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host == "paypal.com" || strings.HasSuffix(host, ".paypal.com")
}
