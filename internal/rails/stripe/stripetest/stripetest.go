// Package stripetest is a stateful stand-in for Stripe's Treasury OutboundPayments, for the
// tests that need what stripe-mock (stateless) cannot give: an Idempotency-Key answered with the
// first payment, payments that move on (posted, returned) and a day's list of them. Every create
// request is first sent to stripe-mock, when given, and refused as it refuses it, so the requests
// the double takes are the ones Stripe's spec takes.
package stripetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	stripeapi "github.com/stripe/stripe-go/v83"
)

// Server is the double, serving /v1/treasury/outbound_payments.
type Server struct {
	*httptest.Server
	validate string // stripe-mock's URL; empty checks nothing
	now      func() time.Time
	// PostAfter, when set before the first request, posts a processing payment once that long
	// has passed since its creation, as Stripe posts an ACH payment on its settlement date.
	PostAfter time.Duration

	mu       sync.Mutex
	byKey    map[string]string // idempotency key -> payment id
	payments map[string]*stripeapi.TreasuryOutboundPayment
	order    []string // payment ids in creation order
	made     int      // payments ever made, for their ids
	creates  map[string]int
}

// New starts the double, closed when t ends. validate is stripe-mock's URL (or empty); now
// stamps the payments' creation.
func New(t testing.TB, validate string, now func() time.Time) *Server {
	t.Helper()
	s := &Server{validate: validate, now: now, byKey: map[string]string{},
		payments: map[string]*stripeapi.TreasuryOutboundPayment{}, creates: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// ForgetKeys forgets every Idempotency-Key, as Stripe may once a key is 24 hours old: a
// repeated key then creates a payment again.
func (s *Server) ForgetKeys() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.byKey)
}

// Creations is how many payments the double created for the transfer id in their metadata:
// requests answered from an idempotency key are not creations.
func (s *Server) Creations(transferID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creates[transferID]
}

// Payments returns the payments made, in creation order.
func (s *Server) Payments() []stripeapi.TreasuryOutboundPayment {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]stripeapi.TreasuryOutboundPayment, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, *s.payments[id])
	}
	return out
}

// Move sets a payment's status (as Stripe's test helpers post, fail and return it); code is the
// return code of a returned one.
func (s *Server) Move(id string, status stripeapi.TreasuryOutboundPaymentStatus, code stripeapi.TreasuryOutboundPaymentReturnedDetailsCode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.payments[id]
	p.Status = status
	if status == stripeapi.TreasuryOutboundPaymentStatusReturned {
		p.ReturnedDetails = &stripeapi.TreasuryOutboundPaymentReturnedDetails{Code: code}
	}
}

// Edit changes a payment as Stripe's records might differ from ours (an amount, a status).
func (s *Server) Edit(id string, edit func(*stripeapi.TreasuryOutboundPayment)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	edit(s.payments[id])
}

// Drop forgets a payment, as if Stripe had never made it.
func (s *Server) Drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.payments, id)
	s.order = slices.DeleteFunc(s.order, func(o string) bool { return o == id })
}

// Add records a payment made outside disburse (no metadata of ours), for reconciliation.
func (s *Server) Add(amount int64, status stripeapi.TreasuryOutboundPaymentStatus, created time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(&stripeapi.TreasuryOutboundPayment{Amount: amount, Currency: stripeapi.CurrencyUSD,
		Status: status, Created: created.Unix(), Metadata: map[string]string{}})
}

func (s *Server) add(p *stripeapi.TreasuryOutboundPayment) string {
	s.made++
	p.ID = "obp_test_" + strconv.Itoa(s.made)
	p.Object = "treasury.outbound_payment"
	s.payments[p.ID] = p
	s.order = append(s.order, p.ID)
	return p.ID
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	const base = "/v1/treasury/outbound_payments"
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == base:
		s.create(w, r, body)
	case r.Method == http.MethodGet && r.URL.Path == base:
		s.list(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, base+"/"):
		s.mu.Lock()
		p, ok := s.payments[strings.TrimPrefix(r.URL.Path, base+"/")]
		var out []byte
		if ok {
			s.postIfDue(p)
			out, _ = json.Marshal(p)
		}
		s.mu.Unlock()
		if !ok {
			writeError(w, http.StatusNotFound, "resource_missing")
			return
		}
		w.Write(out)
	default:
		writeError(w, http.StatusNotFound, "resource_missing")
	}
}

// postIfDue posts p if it is processing and PostAfter has passed since its creation.
func (s *Server) postIfDue(p *stripeapi.TreasuryOutboundPayment) {
	if s.PostAfter > 0 && p.Status == stripeapi.TreasuryOutboundPaymentStatusProcessing &&
		!s.now().Before(time.Unix(p.Created, 0).Add(s.PostAfter)) {
		p.Status = stripeapi.TreasuryOutboundPaymentStatusPosted
	}
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, body []byte) {
	if s.validate != "" {
		status, answer, err := forward(s.validate, r, body)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "stripe_mock_unreachable")
			return
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			w.Write(answer)
			return
		}
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		writeError(w, http.StatusBadRequest, "parameter_invalid")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := r.Header.Get("Idempotency-Key")
	id, replay := s.byKey[key]
	if !replay || key == "" {
		amount, _ := strconv.ParseInt(form.Get("amount"), 10, 64)
		transfer := form.Get("metadata[disburse_transfer_id]")
		id = s.add(&stripeapi.TreasuryOutboundPayment{Amount: amount, Currency: stripeapi.Currency(form.Get("currency")),
			FinancialAccount: form.Get("financial_account"), Status: stripeapi.TreasuryOutboundPaymentStatusProcessing,
			Created: s.now().Unix(), Metadata: map[string]string{
				"disburse_transfer_id": transfer, "disburse_app_id": form.Get("metadata[disburse_app_id]")}})
		s.creates[transfer]++
		if key != "" {
			s.byKey[key] = id
		}
	}
	out, _ := json.Marshal(s.payments[id])
	w.Write(out)
}

// list answers every payment created in the created[gte], created[lt] range, in one page.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	gte, _ := strconv.ParseInt(q.Get("created[gte]"), 10, 64)
	lt, err := strconv.ParseInt(q.Get("created[lt]"), 10, 64)
	if err != nil {
		lt = 1 << 62
	}
	s.mu.Lock()
	page := stripeapi.TreasuryOutboundPaymentList{Data: []*stripeapi.TreasuryOutboundPayment{}}
	for _, id := range slices.Backward(s.order) { // newest first, as Stripe lists
		if p := s.payments[id]; p.Created >= gte && p.Created < lt {
			c := *p
			page.Data = append(page.Data, &c)
		}
	}
	s.mu.Unlock()
	page.URL = "/v1/treasury/outbound_payments"
	out, _ := json.Marshal(page)
	w.Write(out)
}

// forward sends the request to stripe-mock and returns its status and body.
func forward(base string, r *http.Request, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp.StatusCode, answer, err
}

func writeError(w http.ResponseWriter, status int, code string) {
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"type":"invalid_request_error","code":%q,"message":"stripetest: %s"}}`, code, code)
}
