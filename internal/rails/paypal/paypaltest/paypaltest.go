// Package paypaltest is a PayPal Payouts double for tests: an httptest server that keeps what
// PayPal keeps of payouts (one batch per sender_batch_id, the first answer per PayPal-Request-Id,
// a transaction per item that Transaction Search lists) and refuses requests without the shapes
// PayPal requires. No network.
package paypaltest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Credentials the double accepts, and the webhook signature it verifies.
const (
	ClientID     = "test-client-id"
	ClientSecret = "test-client-secret"
	WebhookID    = "1JE4291016473214C"
	GoodSig      = "signed-by-paypal"
	token        = "A21AA-test-token"
)

// Server is the double.
type Server struct {
	*httptest.Server

	mu        sync.Mutex
	batches   map[string]*batch // by sender_batch_id
	byID      map[string]*batch // by payout_batch_id
	requests  map[string][]byte // first answer per PayPal-Request-Id
	creates   int               // create calls that reached the double
	verifies  int               // verify-webhook-signature calls that reached the double
	tokens    int               // tokens issued
	problems  []string          // requests not shaped as PayPal requires
	itemState string            // transaction_status of every item; SUCCESS by default
	// noReplay makes the double forget every PayPal-Request-Id, as PayPal does once it no longer
	// keeps the key (6 hours by default): a repeated create then meets the duplicate
	// sender_batch_id. noLink leaves the duplicate answer without its link to the original batch.
	noReplay, noLink bool
	// transactions Transaction Search lists, in the order made: one per batch's item, and those
	// added as made outside disburse.
	transactions []*Transaction
	// Now dates the transactions; time.Now unless set.
	Now func() time.Time
}

type batch struct {
	ID     string
	item   map[string]any // the item as sent
	txn    *Transaction
	status string // the item's transaction_status when set (SetItemStatusOf)
}

// Transaction is a payment as Transaction Search lists it: a payout item's (event T0001) or one
// added; tests edit it to make PayPal's records differ from ours.
type Transaction struct {
	ID     string
	Value  string // transaction_amount, as PayPal writes money sent: "-9.87"
	Status string // transaction_status: S, P, D or V
	At     time.Time
	Gone   bool // not listed
}

// New starts a double, closed when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{batches: map[string]*batch{}, byID: map[string]*batch{}, requests: map[string][]byte{}, itemState: "SUCCESS",
		Now: time.Now}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetItemStatus sets the transaction_status every item reports from now on.
func (s *Server) SetItemStatus(status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.itemState = status
}

// ForgetRequestIDs makes the double answer a repeated PayPal-Request-Id as a new request.
func (s *Server) ForgetRequestIDs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noReplay = true
}

// OmitDuplicateLink makes the duplicate sender_batch_id answer carry no link to the original.
func (s *Server) OmitDuplicateLink() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noLink = true
}

// SetItemStatusOf sets the transaction_status of the item whose sender_item_id is transferID,
// once its batch is made. A FAILED, BLOCKED or DENIED item moved no money, so Transaction Search
// no longer lists its transaction; a RETURNED, REFUNDED or REVERSED one lists it reversed (V).
func (s *Server) SetItemStatusOf(transferID, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		if b.item["sender_item_id"] == transferID {
			b.status = status
			switch status {
			case "FAILED", "BLOCKED", "DENIED":
				b.txn.Gone = true
			case "RETURNED", "REFUNDED", "REVERSED":
				b.txn.Status = "V"
			}
			return
		}
	}
	s.problem("no batch has an item %s to set the status of", transferID)
}

// Batches is how many distinct batches (payments) the double made.
func (s *Server) Batches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.batches)
}

// Creates is how many create calls reached the double, and Tokens how many tokens it issued.
func (s *Server) Creates() (creates, tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creates, s.tokens
}

// Verifies is how many verify-webhook-signature calls reached the double.
func (s *Server) Verifies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verifies
}

// TransactionOf is the transaction of the payout item whose sender_item_id is transferID, nil
// if none was made. Edit it under Edit.
func (s *Server) TransactionOf(transferID string) *Transaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		if b.item["sender_item_id"] == transferID {
			return b.txn
		}
	}
	return nil
}

// Edit runs f on a transaction while no request is served.
func (s *Server) Edit(txn *Transaction, f func(*Transaction)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(txn)
}

// AddPayment lists a payout made outside disburse, of value ("-5.00") and status, made at.
func (s *Server) AddPayment(value, status string, at time.Time) *Transaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addTransaction(value, status, at)
}

func (s *Server) addTransaction(value, status string, at time.Time) *Transaction {
	txn := &Transaction{ID: fmt.Sprintf("9TX%014d", len(s.transactions)+1), Value: value, Status: status, At: at}
	s.transactions = append(s.transactions, txn)
	return txn
}

// Check fails t with every request the double found misshapen.
func (s *Server) Check(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.problems {
		t.Error("paypal double: " + p)
	}
}

func (s *Server) problem(format string, args ...any) {
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == "/v1/oauth2/token" {
		id, secret, ok := r.BasicAuth()
		if r.Method != http.MethodPost || !ok || id != ClientID || secret != ClientSecret ||
			r.FormValue("grant_type") != "client_credentials" {
			s.problem("token request %s without the client credentials", r.Method)
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		s.tokens++
		write(w, http.StatusOK, map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 32400})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+token {
		s.problem("%s %s without the bearer token", r.Method, r.URL.Path)
		write(w, http.StatusUnauthorized, map[string]any{"name": "AUTHENTICATION_FAILURE"})
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/payments/payouts":
		s.create(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/payments/payouts/"):
		b, ok := s.byID[strings.TrimPrefix(r.URL.Path, "/v1/payments/payouts/")]
		if !ok {
			write(w, http.StatusNotFound, map[string]any{"name": "INVALID_RESOURCE_ID"})
			return
		}
		status := s.itemState
		if b.status != "" {
			status = b.status
		}
		item := map[string]any{"payout_item_id": "I" + b.ID, "transaction_id": b.txn.ID, "transaction_status": status,
			"payout_batch_id": b.ID, "payout_item": b.item}
		write(w, http.StatusOK, map[string]any{"batch_header": map[string]any{"payout_batch_id": b.ID, "batch_status": "SUCCESS"},
			"items": []any{item}})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/reporting/transactions":
		s.search(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/notifications/verify-webhook-signature":
		s.verifies++
		var v map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil || v["webhook_event"] == nil {
			write(w, http.StatusBadRequest, map[string]any{"name": "VALIDATION_ERROR"})
			return
		}
		status := "FAILURE"
		if string(v["transmission_sig"]) == `"`+GoodSig+`"` && string(v["webhook_id"]) == `"`+WebhookID+`"` {
			status = "SUCCESS"
		}
		write(w, http.StatusOK, map[string]any{"verification_status": status})
	default:
		write(w, http.StatusNotFound, map[string]any{"name": "NOT_FOUND"})
	}
}

// create makes a batch, answering a repeated PayPal-Request-Id with its first answer and refusing
// a sender_batch_id used before, as PayPal does.
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	s.creates++
	requestID := r.Header.Get("PayPal-Request-Id")
	if requestID == "" || r.Header.Get("Content-Type") != "application/json" {
		s.problem("create payout without PayPal-Request-Id or a JSON content type")
	}
	if first, ok := s.requests[requestID]; ok && !s.noReplay {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(first)
		return
	}
	var req struct {
		SenderBatchHeader struct {
			SenderBatchID string `json:"sender_batch_id"`
		} `json:"sender_batch_header"`
		Items []map[string]any `json:"items"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.SenderBatchHeader.SenderBatchID == "" || len(req.Items) != 1 {
		s.problem("create payout body is not one batch of one item: %v", err)
		write(w, http.StatusBadRequest, map[string]any{"name": "VALIDATION_ERROR"})
		return
	}
	if first, dup := s.batches[req.SenderBatchHeader.SenderBatchID]; dup {
		// The reference: the error "includes a HATEOAS link to the original payout with the same
		// sender_batch_id" (testdata/create_payout.duplicate.response.json).
		answer := map[string]any{"name": "USER_BUSINESS_ERROR", "message": "User business error.", "debug_id": "f0b2b9ab32fd4",
			"details": []any{map[string]any{"field": "SENDER_BATCH_ID", "location": "body", "issue": "Batch with given sender_batch_id already exists"}}}
		if !s.noLink {
			answer["links"] = []any{map[string]any{"href": s.URL + "/v1/payments/payouts/" + first.ID, "rel": "self", "method": "GET",
				"encType": "application/json"}}
		}
		write(w, http.StatusBadRequest, answer)
		return
	}
	if note, _ := req.Items[0]["note"].(string); note == "" && req.Items[0]["recipient_wallet"] == "VENMO" {
		s.problem("a Venmo item without a note, which the reference says Venmo requires")
	}
	amount, _ := req.Items[0]["amount"].(map[string]any)
	value, _ := amount["value"].(string)
	b := &batch{ID: fmt.Sprintf("PB%06d", len(s.batches)+1), item: req.Items[0], txn: s.addTransaction("-"+value, "S", s.Now())}
	s.batches[req.SenderBatchHeader.SenderBatchID], s.byID[b.ID] = b, b
	answer, _ := json.Marshal(map[string]any{"batch_header": map[string]any{"payout_batch_id": b.ID, "batch_status": "PENDING",
		"sender_batch_header": map[string]any{"sender_batch_id": req.SenderBatchHeader.SenderBatchID}}})
	s.requests[requestID] = answer
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write(answer)
}

// search lists the transactions made within start_date and end_date (at most 31 days apart), a
// page at a time, in the shape of PayPal's reference: every listed one a payout (T0001).
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start, err1 := time.Parse(time.RFC3339, q.Get("start_date"))
	end, err2 := time.Parse(time.RFC3339, q.Get("end_date"))
	size, err3 := strconv.Atoi(q.Get("page_size"))
	page, err4 := strconv.Atoi(q.Get("page"))
	if err := errors.Join(err1, err2, err3, err4); err != nil || end.Sub(start) > 31*24*time.Hour || size < 1 || size > 500 || page < 1 ||
		q.Get("fields") != "transaction_info" {
		s.problem("transaction search %s is not a query PayPal answers", r.URL.RawQuery)
		write(w, http.StatusBadRequest, map[string]any{"name": "INVALID_REQUEST"})
		return
	}
	var listed []*Transaction
	for _, txn := range s.transactions {
		if !txn.Gone && !txn.At.Before(start) && !txn.At.After(end) {
			listed = append(listed, txn)
		}
	}
	sort.SliceStable(listed, func(i, j int) bool { return listed[i].At.Before(listed[j].At) })
	details := []any{}
	for _, txn := range listed[min((page-1)*size, len(listed)):min(page*size, len(listed))] {
		at := txn.At.UTC().Format("2006-01-02T15:04:05-0700")
		details = append(details, map[string]any{"transaction_info": map[string]any{"transaction_id": txn.ID,
			"transaction_event_code": "T0001", "transaction_initiation_date": at, "transaction_updated_date": at,
			"transaction_amount": map[string]any{"currency_code": "USD", "value": txn.Value}, "transaction_status": txn.Status}})
	}
	write(w, http.StatusOK, map[string]any{"transaction_details": details, "account_number": "XZXSPECPDZHZU", "page": page,
		"total_items": len(listed), "total_pages": max(1, (len(listed)+size-1)/size)})
}

func write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
