// Package paypaltest is a PayPal Payouts double for tests: an httptest server that keeps what
// PayPal keeps of payouts (one batch per sender_batch_id, the first answer per PayPal-Request-Id)
// and refuses requests without the shapes PayPal requires. No network.
package paypaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
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
	tokens    int               // tokens issued
	problems  []string          // requests not shaped as PayPal requires
	itemState string            // transaction_status of every item; SUCCESS by default
}

type batch struct {
	ID   string
	item map[string]any // the item as sent
}

// New starts a double, closed when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{batches: map[string]*batch{}, byID: map[string]*batch{}, requests: map[string][]byte{}, itemState: "SUCCESS"}
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
		item := map[string]any{"payout_item_id": "I" + b.ID, "transaction_status": s.itemState, "payout_batch_id": b.ID,
			"payout_item": b.item}
		write(w, http.StatusOK, map[string]any{"batch_header": map[string]any{"payout_batch_id": b.ID, "batch_status": "SUCCESS"},
			"items": []any{item}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/notifications/verify-webhook-signature":
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
	if first, ok := s.requests[requestID]; ok {
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
	if _, dup := s.batches[req.SenderBatchHeader.SenderBatchID]; dup {
		write(w, http.StatusBadRequest, map[string]any{"name": "USER_BUSINESS_ERROR", "message": "User business error.",
			"details": []any{map[string]any{"field": "SENDER_BATCH_ID", "issue": "Batch with given sender_batch_id already exists"}}})
		return
	}
	b := &batch{ID: fmt.Sprintf("PB%06d", len(s.batches)+1), item: req.Items[0]}
	s.batches[req.SenderBatchHeader.SenderBatchID], s.byID[b.ID] = b, b
	answer, _ := json.Marshal(map[string]any{"batch_header": map[string]any{"payout_batch_id": b.ID, "batch_status": "PENDING",
		"sender_batch_header": map[string]any{"sender_batch_id": req.SenderBatchHeader.SenderBatchID}}})
	s.requests[requestID] = answer
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write(answer)
}

func write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
