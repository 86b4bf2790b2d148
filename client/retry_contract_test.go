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

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
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
// with the same idempotency key, gets the same object back, and the ledger shows one effect.
func TestRetryAfterACommittedAttemptIsLost(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// write makes the keyed write through c and returns the id of what it made.
		write func(t *testing.T, env *servicetest.Env, c *client.Client, userID string) (string, error)
		// effect checks, through direct, that the write took effect once.
		effect func(t *testing.T, env *servicetest.Env, direct *client.Client, userID, id string)
	}{
		{"transfer",
			func(t *testing.T, env *servicetest.Env, c *client.Client, userID string) (string, error) {
				tr, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: userID, Amount: -2_500})
				if err != nil {
					return "", err
				}
				return tr.ID, nil
			},
			func(t *testing.T, env *servicetest.Env, direct *client.Client, userID, id string) {
				wantOnlyTransfer(t, direct, userID, id, "transfer")
				wantWallets(t, env, direct, userID, 2_500, 7_500)
			}},
		{"deposit",
			func(t *testing.T, env *servicetest.Env, c *client.Client, userID string) (string, error) {
				tr, err := c.Deposit(ctx, env.AppID, payouts.DepositRequest{Amount: 4_000})
				if err != nil {
					return "", err
				}
				return tr.ID, nil
			},
			func(t *testing.T, env *servicetest.Env, direct *client.Client, userID, id string) {
				l, err := direct.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{Type: payouts.TransferRefill})
				if err != nil || len(l.Data) != 2 || l.Data[0].ID != id {
					t.Errorf("refills = %+v, %v; want the setup's and this one", l, err)
				}
				wantWallets(t, env, direct, userID, 0, 14_000)
			}},
		{"payout",
			func(t *testing.T, env *servicetest.Env, c *client.Client, userID string) (string, error) {
				tr, err := c.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: userID, Amount: 3_000,
					Platform: payouts.PlatformPayPal, Fund: true})
				if err != nil {
					return "", err
				}
				return tr.ID, nil
			},
			func(t *testing.T, env *servicetest.Env, direct *client.Client, userID, id string) {
				wantOnlyTransfer(t, direct, userID, id, "payout")
				u, err := direct.GetUser(ctx, userID)
				if err != nil || u.Wallet.Amount != 3_000 || u.Wallet.WithdrawableAmount != 0 {
					t.Errorf("the user's wallet = %+v, %v; want $30.00 funded once and reserved", u, err)
				}
			}},
		{"payout link",
			func(t *testing.T, env *servicetest.Env, c *client.Client, userID string) (string, error) {
				l, err := c.CreatePayoutLink(ctx, payouts.CreatePayoutLinkRequest{Amount: 1_000, UserID: userID,
					Delivery: &payouts.Delivery{Method: payouts.DeliveryLink}})
				if err != nil {
					return "", err
				}
				return l.ID, nil
			},
			func(t *testing.T, env *servicetest.Env, direct *client.Client, userID, id string) {
				l, err := direct.ListPayoutLinks(ctx, payouts.Page{}, payouts.PayoutLinkFilter{})
				if err != nil || len(l.Data) != 1 || l.Data[0].ID != id {
					t.Errorf("payout links = %+v, %v; want the one link", l, err)
				}
				app, err := direct.GetApp(ctx, env.AppID)
				if err != nil || app.Wallet.WithdrawableAmount != 9_000 {
					t.Errorf("app wallet = %+v, %v; want $10.00 reserved once", app, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, direct := startService(t)
			ada := createUser(t, direct, "Ada")
			addPayPal(t, direct, ada.ID, "ada.pp@example.com")
			deposit(t, env, direct, 10_000)

			proxy, viaProxy := startDroppingProxy(t, env, http.MethodPost)
			id, err := tt.write(t, env, viaProxy, ada.ID)
			if err != nil {
				t.Fatalf("write through a lost answer: %v", err)
			}
			attempts, dropped := proxy.seen()
			var lost struct{ ID string }
			if err := json.Unmarshal(dropped, &lost); err != nil || lost.ID == "" {
				t.Fatalf("the dropped answer %q names no object: %v", dropped, err)
			}
			if attempts != 2 {
				t.Errorf("%d attempts reached the service, want 2", attempts)
			}
			if id != lost.ID {
				t.Errorf("the retry returned %s, want the committed %s", id, lost.ID)
			}
			tt.effect(t, env, direct, ada.ID, lost.ID)
		})
	}
}

// wantOnlyTransfer checks that the user's transfers are the one with id, a what.
func wantOnlyTransfer(t *testing.T, c *client.Client, userID, id, what string) {
	t.Helper()
	l, err := c.ListTransfers(context.Background(), payouts.Page{}, payouts.TransferFilter{UserID: userID})
	if err != nil || len(l.Data) != 1 || l.Data[0].ID != id {
		t.Errorf("the user's transfers = %+v, %v; want the one %s", l, err, what)
	}
}

// wantWallets checks the posted balances of a user's wallet and of the app's.
func wantWallets(t *testing.T, env *servicetest.Env, c *client.Client, userID string, user, app payouts.Money) {
	t.Helper()
	ctx := context.Background()
	if u, err := c.GetUser(ctx, userID); err != nil || u.Wallet.Amount != user {
		t.Errorf("user wallet = %+v, %v; want %v", u, err, user)
	}
	if a, err := c.GetApp(ctx, env.AppID); err != nil || a.Wallet.Amount != app {
		t.Errorf("app wallet = %+v, %v; want %v", a, err, app)
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
