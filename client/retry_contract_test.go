package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"disburse/client"
	"disburse/payouts"
	"disburse/testutil/servicetest"
)

// droppingProxy stands between the client and the real service. It forwards every request
// whole; for the first request of the method it is armed for, it reads the service's answer,
// so the service has committed, then closes the client's connection without writing a byte of
// it: the client cannot know whether its request took effect.
type droppingProxy struct {
	env    *servicetest.Env
	method string

	mu       sync.Mutex
	armed    bool
	dropped  []byte // the answer the client never saw
	attempts int    // requests of the method forwarded
}

func (p *droppingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.env.Origin+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := p.env.HTTP.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}

	p.mu.Lock()
	drop := false
	if r.Method == p.method {
		p.attempts++
		if p.armed {
			p.armed, drop, p.dropped = false, true, answer
		}
	}
	p.mu.Unlock()
	if drop {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// seen returns how many requests of the method were forwarded, and the answer that was dropped.
func (p *droppingProxy) seen() (attempts int, dropped []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.attempts, p.dropped
}

// startDroppingProxy returns the proxy, armed to drop the first answer to method, and a client
// that reaches the service through it.
func startDroppingProxy(t *testing.T, env *servicetest.Env, method string) (*droppingProxy, *client.Client) {
	t.Helper()
	p := &droppingProxy{env: env, method: method, armed: true}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, newClient(t, srv.URL+"/api/", env.ClientID, env.APIKey)
}

// TestRetryAfterACommittedAttemptIsLost is the retry test of the client's issue: the first
// attempt of a write reaches the service and commits, but its answer is lost. The client retries
// with the same idempotency key, gets the same transfer back, and the ledger shows one effect.
func TestRetryAfterACommittedAttemptIsLost(t *testing.T) {
	ctx := context.Background()
	env, direct := startService(t)
	ada := createUser(t, direct, "Ada")
	deposit(t, env, direct, 10_000)

	proxy, viaProxy := startDroppingProxy(t, env, http.MethodPost)
	tr, err := viaProxy.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: -2_500})
	if err != nil {
		t.Fatalf("CreateTransfer through a lost answer: %v", err)
	}
	attempts, dropped := proxy.seen()
	var lost payouts.Transfer
	if err := json.Unmarshal(dropped, &lost); err != nil || lost.ID == "" {
		t.Fatalf("the dropped answer %q is not a transfer: %v", dropped, err)
	}
	if attempts != 2 {
		t.Errorf("%d attempts reached the service, want 2", attempts)
	}
	if tr.ID != lost.ID || tr.Amount != -2_500 {
		t.Errorf("retry returned transfer %s (%v), want the committed %s", tr.ID, tr.Amount, lost.ID)
	}

	// One effect: one balance transfer for Ada, her wallet and the app's moved once.
	transfers, err := direct.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{UserID: ada.ID})
	if err != nil || len(transfers.Data) != 1 || transfers.Data[0].ID != lost.ID {
		t.Errorf("Ada's transfers = %+v, %v; want the one transfer", transfers, err)
	}
	if u, err := direct.GetUser(ctx, ada.ID); err != nil || u.Wallet.Amount != 2_500 {
		t.Errorf("Ada's wallet = %+v, %v; want $25.00", u, err)
	}
	if app, err := direct.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 7_500 {
		t.Errorf("app wallet = %+v, %v; want $75.00", app, err)
	}
}

// TestDepositRetryAfterALostAnswer is the same for the other keyed write that exists today.
func TestDepositRetryAfterALostAnswer(t *testing.T) {
	ctx := context.Background()
	env, direct := startService(t)
	proxy, viaProxy := startDroppingProxy(t, env, http.MethodPost)
	tr, err := viaProxy.Deposit(ctx, env.AppID, payouts.DepositRequest{Amount: 4_000})
	if err != nil {
		t.Fatalf("Deposit through a lost answer: %v", err)
	}
	attempts, dropped := proxy.seen()
	var lost payouts.Transfer
	if err := json.Unmarshal(dropped, &lost); err != nil || tr.ID != lost.ID || attempts != 2 {
		t.Errorf("retry returned %s after %d attempts, dropped answer %s (%v)", tr.ID, attempts, dropped, err)
	}
	if app, err := direct.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 4_000 {
		t.Errorf("app wallet = %+v, %v; want one deposit of $40.00", app, err)
	}
}

// TestUnkeyedWriteIsNotRetried shows the other side: a write without an idempotency key is sent
// once, so a lost answer is an error the caller sees, and the service acted once.
func TestUnkeyedWriteIsNotRetried(t *testing.T) {
	ctx := context.Background()
	env, direct := startService(t)
	proxy, viaProxy := startDroppingProxy(t, env, http.MethodPost)
	u, err := viaProxy.CreateUser(ctx, newUserRequest("Ada"))
	if err == nil {
		t.Fatalf("CreateUser through a lost answer = %+v, want an error", u)
	}
	if apiErr := (*payouts.Error)(nil); errors.As(err, &apiErr) {
		t.Errorf("err = %v, want a network error", err)
	}
	if attempts, _ := proxy.seen(); attempts != 1 {
		t.Errorf("%d attempts, want 1", attempts)
	}
	users, err := direct.ListUsers(ctx, payouts.Page{}, payouts.UserFilter{})
	if err != nil || len(users.Data) != 1 {
		t.Errorf("users = %+v, %v; want the one created by the lost attempt", users, err)
	}
}
