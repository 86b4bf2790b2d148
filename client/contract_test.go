package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// The contract tests run every method against the real Payout Service, started in-process on
// SQLite with servicetest, and those of the public API's routes on PostgreSQL as well
// (pgtest.EachEngine): the wire format of both sides is checked together, success and error
// paths. servicetest fails a test when the service answers anything with a 5xx or when a ledger
// does not balance at the end.

// startService starts the service (on SQLite, or as opts say) and returns it with a client
// holding its first app's credentials. Retries wait little, so that a retried test stays quick.
func startService(t *testing.T, opts ...servicetest.Option) (*servicetest.Env, *client.Client) {
	t.Helper()
	env := servicetest.Start(t, opts...)
	return env, newClient(t, env.URL, env.ClientID, env.APIKey)
}

func newClient(t *testing.T, baseURL, clientID, apiKey string) *client.Client {
	t.Helper()
	c, err := client.New(baseURL, client.WithCredentials(clientID, apiKey),
		client.WithRetry(client.RetryPolicy{MaxAttempts: 3, BaseDelay: 5 * time.Millisecond, MaxDelay: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantError fails t unless err is a *payouts.Error with the status and code, and names every
// one of fields.
func wantError(t *testing.T, err error, status int, code string, fields ...string) *payouts.Error {
	t.Helper()
	var e *payouts.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a %d %s *payouts.Error", err, status, code)
	}
	if e.Status != status || e.Code != code || e.Message == "" || len(e.Body) == 0 {
		t.Errorf("err = %d %q %q (body %s), want %d %s with a message", e.Status, e.Code, e.Message, e.Body, status, code)
	}
	for _, f := range fields {
		if e.Fields[f] == "" {
			t.Errorf("err fields %v lack %q", e.Fields, f)
		}
	}
	return e
}

var userSeq int

// newUserRequest returns a valid, unique user.
func newUserRequest(first string) payouts.CreateUserRequest {
	userSeq++
	return payouts.CreateUserRequest{
		FirstName:   first,
		LastName:    "Tester",
		Email:       fmt.Sprintf("%s.%d@example.com", strings.ToLower(first), userSeq),
		CountryCode: "1",
		PhoneNumber: fmt.Sprintf("41555%05d", userSeq),
	}
}

func createUser(t *testing.T, c *client.Client, first string) *payouts.User {
	t.Helper()
	u, err := c.CreateUser(context.Background(), newUserRequest(first))
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	return u
}

func deposit(t *testing.T, env *servicetest.Env, c *client.Client, amount int64) *payouts.Transfer {
	t.Helper()
	tr, err := c.Deposit(context.Background(), env.AppID, payouts.DepositRequest{Amount: amount})
	if err != nil {
		t.Fatalf("Deposit: %v", err)
	}
	return tr
}

// fundUser moves amount cents from the app's wallet to the user's.
func fundUser(t *testing.T, c *client.Client, userID string, amount int64) *payouts.Transfer {
	t.Helper()
	tr, err := c.CreateTransfer(context.Background(), payouts.CreateTransferRequest{UserID: userID, Amount: -amount})
	if err != nil {
		t.Fatalf("CreateTransfer: %v", err)
	}
	return tr
}

func TestContractAuthentication(t *testing.T) {
	env, _ := startService(t)
	ctx := context.Background()
	bad := []struct{ name, id, key string }{
		{"wrong key", env.ClientID, env.APIKey + "x"},
		{"unknown client", "nobody", env.APIKey},
		{"no credentials", "", ""},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			c := newClient(t, env.URL, b.id, b.key)
			_, err := c.GetApp(ctx, env.AppID)
			wantError(t, err, http.StatusUnauthorized, payouts.EUnauthorized)
			_, err = c.CreateUser(ctx, newUserRequest("Eve"))
			wantError(t, err, http.StatusUnauthorized, payouts.EUnauthorized)
		})
	}
}

func TestContractApp(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c := startService(t, servicetest.WithDSN(dsn))
		ctx := context.Background()

		app, err := c.GetApp(ctx, env.AppID)
		if err != nil {
			t.Fatal(err)
		}
		if app.ID != env.AppID || app.Name == "" || app.Wallet != (payouts.Wallet{}) {
			t.Errorf("new app = %+v", app)
		}

		tr := deposit(t, env, c, 100_000)
		if tr.Type != payouts.TransferRefill || tr.Amount != 100_000 || tr.Status != payouts.TransferCompleted || tr.ID == "" {
			t.Errorf("deposit = %+v", tr)
		}
		if app, err = c.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 100_000 || app.Wallet.WithdrawableAmount != 100_000 {
			t.Errorf("app after deposit = %+v, %v", app, err)
		}

		t.Run("deposit with the same key is one deposit", func(t *testing.T) {
			req := payouts.DepositRequest{Amount: 500, IdempotencyKey: "0b6a7c1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b"}
			first, err := c.Deposit(ctx, env.AppID, req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := c.Deposit(ctx, env.AppID, req)
			if err != nil || again.ID != first.ID {
				t.Fatalf("repeat = %+v, %v; want transfer %s", again, err, first.ID)
			}
			if app, err := c.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 100_500 {
				t.Errorf("app after a repeated deposit = %+v, %v", app, err)
			}
		})
		t.Run("stats", func(t *testing.T) {
			now, err := c.GetApp(ctx, env.AppID)
			if err != nil {
				t.Fatal(err)
			}
			st, err := c.GetAppStats(ctx, env.AppID, 7, "")
			if err != nil {
				t.Fatal(err)
			}
			if st.Wallet != now.Wallet || len(st.Days) != 7 || st.Today != st.Days[6] || st.Today.Deposits < 100_000 {
				t.Errorf("stats = %+v, want 7 days and today's deposits", st)
			}
			if st, err := c.GetAppStats(ctx, env.AppID, 0, ""); err != nil || len(st.Days) != 30 {
				t.Errorf("default window = %d days, %v; want 30", len(st.Days), err)
			}
			_, err = c.GetAppStats(ctx, env.AppID, 1000, "")
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "days")
			other := env.CreateApp(t, "Stats other")
			_, err = c.GetAppStats(ctx, other.AppID, 7, "")
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		})

		t.Run("errors", func(t *testing.T) {
			_, err := c.Deposit(ctx, env.AppID, payouts.DepositRequest{Amount: 0})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "amount")
			_, err = c.Deposit(ctx, env.AppID, payouts.DepositRequest{Amount: -5})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "amount")

			other := env.CreateApp(t, "Other")
			_, err = c.GetApp(ctx, other.AppID)
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.Deposit(ctx, other.AppID, payouts.DepositRequest{Amount: 5})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.GetApp(ctx, "not-a-uuid")
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		})
	})
}

func TestContractTransfersAndTransactions(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c := startService(t, servicetest.WithDSN(dsn))
		ctx := context.Background()
		ada := createUser(t, c, "Ada")
		grace := createUser(t, c, "Grace")
		refill := deposit(t, env, c, 10_000)

		toAda := fundUser(t, c, ada.ID, 2_500)
		if toAda.Type != payouts.TransferBalance || toAda.Amount != -2_500 || toAda.Status != payouts.TransferCompleted ||
			toAda.UserID == nil || *toAda.UserID != ada.ID || len(toAda.Transactions) == 0 {
			t.Errorf("transfer to Ada = %+v", toAda)
		}
		toGrace := fundUser(t, c, grace.ID, 1_000)
		back, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: 500,
			Metadata: json.RawMessage(`{"reason":"refund"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if back.Amount != 500 || !strings.Contains(string(back.Metadata), "refund") {
			t.Errorf("transfer from Ada = %+v", back)
		}
		if u, err := c.GetUser(ctx, ada.ID); err != nil || u.Wallet.Amount != 2_000 || u.Wallet.WithdrawableAmount != 2_000 {
			t.Errorf("Ada's wallet = %+v, %v", u, err)
		}
		if app, err := c.GetApp(ctx, env.AppID); err != nil || app.Wallet.Amount != 10_000-2_500-1_000+500 {
			t.Errorf("app wallet = %+v, %v", app, err)
		}

		got, err := c.GetTransfer(ctx, toAda.ID)
		if err != nil || got.ID != toAda.ID || got.Amount != toAda.Amount || len(got.Transactions) != len(toAda.Transactions) {
			t.Errorf("GetTransfer = %+v, %v", got, err)
		}

		t.Run("list transfers", func(t *testing.T) {
			all, err := c.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{})
			if err != nil || len(all.Data) != 4 || all.HasMore || all.Data[0].ID != back.ID || all.Data[3].ID != refill.ID {
				t.Errorf("all transfers = %+v, %v", all, err)
			}
			ofAda, err := c.ListTransfers(ctx, payouts.Page{Limit: 1}, payouts.TransferFilter{UserID: ada.ID})
			if err != nil || len(ofAda.Data) != 1 || !ofAda.HasMore || ofAda.Data[0].ID != back.ID {
				t.Errorf("Ada's first transfer = %+v, %v", ofAda, err)
			}
			refills, err := c.ListTransfers(ctx, payouts.Page{}, payouts.TransferFilter{Type: payouts.TransferRefill})
			if err != nil || len(refills.Data) != 1 || refills.Data[0].ID != refill.ID {
				t.Errorf("refills = %+v, %v", refills, err)
			}
			var walked []string
			for tr, err := range c.AllTransfers(ctx, payouts.TransferFilter{Status: payouts.TransferCompleted}) {
				if err != nil {
					t.Fatal(err)
				}
				walked = append(walked, tr.ID)
			}
			if want := []string{back.ID, toGrace.ID, toAda.ID, refill.ID}; strings.Join(walked, ",") != strings.Join(want, ",") {
				t.Errorf("AllTransfers = %v, want %v", walked, want)
			}
		})

		t.Run("transactions", func(t *testing.T) {
			line := toAda.Transactions[0]
			tx, err := c.GetTransaction(ctx, line.ID)
			if err != nil || tx.ID != line.ID || tx.TransferID != toAda.ID || tx.Amount != line.Amount {
				t.Errorf("GetTransaction = %+v, %v; want %+v", tx, err, line)
			}
			ofAda, err := c.ListTransactions(ctx, payouts.Page{Limit: 1}, payouts.TransactionFilter{UserID: ada.ID})
			if err != nil || len(ofAda.Data) != 1 || !ofAda.HasMore {
				t.Errorf("Ada's first transaction = %+v, %v", ofAda, err)
			}
			var walked, pages []int64
			for tx, err := range c.AllTransactions(ctx, payouts.TransactionFilter{UserID: ada.ID}) {
				if err != nil {
					t.Fatal(err)
				}
				walked = append(walked, tx.ID)
			}
			for p := (payouts.Page{Limit: 1}); ; {
				l, err := c.ListTransactions(ctx, p, payouts.TransactionFilter{UserID: ada.ID})
				if err != nil {
					t.Fatal(err)
				}
				for _, tx := range l.Data {
					pages = append(pages, tx.ID)
				}
				if !l.HasMore {
					break
				}
				p.StartingAfter = fmt.Sprint(l.Data[len(l.Data)-1].ID)
			}
			if len(walked) < 2 || fmt.Sprint(walked) != fmt.Sprint(pages) {
				t.Errorf("AllTransactions = %v, pages of one = %v", walked, pages)
			}
			_, err = c.GetTransaction(ctx, 987654321)
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		})

		t.Run("idempotency", func(t *testing.T) {
			req := payouts.CreateTransferRequest{UserID: grace.ID, Amount: -100, IdempotencyKey: "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9"}
			first, err := c.CreateTransfer(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := c.CreateTransfer(ctx, req)
			if err != nil || again.ID != first.ID {
				t.Errorf("repeat = %+v, %v; want transfer %s", again, err, first.ID)
			}
			req.Amount = -200
			_, err = c.CreateTransfer(ctx, req)
			wantError(t, err, http.StatusConflict, payouts.EIdempotencyReused)
			if u, err := c.GetUser(ctx, grace.ID); err != nil || u.Wallet.Amount != 1_100 {
				t.Errorf("Grace's wallet = %+v, %v; want one transfer of 100 on top of 1000", u, err)
			}
		})

		t.Run("errors", func(t *testing.T) {
			_, err := c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: -1_000_000})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			_, err = c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: 1_000_000})
			wantError(t, err, http.StatusUnprocessableEntity, payouts.EInsufficientFunds)
			_, err = c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: ada.ID, Amount: 0})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "amount")
			_, err = c.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: "6f1e2d3c-4b5a-4968-8776-655443322110", Amount: -1})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.GetTransfer(ctx, "6f1e2d3c-4b5a-4968-8776-655443322110")
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.ListTransfers(ctx, payouts.Page{Limit: -1}, payouts.TransferFilter{})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "limit")
			_, err = c.ListTransactions(ctx, payouts.Page{StartingAfter: "a", EndingBefore: "b"}, payouts.TransactionFilter{})
			wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput)
		})
	})
}
