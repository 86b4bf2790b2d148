package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/payouts"
)

// sample reads a JSON answer shaped like the public service's from testdata/public.
func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "public", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// received is what a sample server was sent.
type received struct {
	Method, Path, RawQuery, Body string
	Header                       http.Header
}

// sampleServer answers every request with status and body, and records what it was sent. The
// client talks to it through a base URL with the /api prefix and a trailing slash, as operators
// type it.
func sampleServer(t *testing.T, status int, body string) (*client.Client, func() []received) {
	t.Helper()
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(b), r.Header.Clone()})
		mu.Unlock()
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api/", client.WithCredentials("client-1", "key-1"),
		client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []received {
		mu.Lock()
		defer mu.Unlock()
		return append([]received(nil), got...)
	}
}

func mustTime(t *testing.T, s string) payouts.Time {
	t.Helper()
	tt, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return payouts.NewTime(tt)
}

// TestDecodePublicSamples decodes answers shaped like the public service's: amounts as numeric
// strings, timestamps without a zone, nulls where objects and strings are expected, unknown
// fields, and integer transaction ids beyond what a float can hold.
func TestDecodePublicSamples(t *testing.T) {
	ctx := context.Background()
	userID := "2c3b5d5e-8f1a-4b6e-9d6a-3f0e7c1a2b44"

	t.Run("user", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "user.json"))
		u, err := c.GetUser(ctx, userID)
		if err != nil {
			t.Fatal(err)
		}
		if u.ID != userID || u.Name() != "Ada Lovelace" || u.PhoneNumber.String() != "+1 4155550100" {
			t.Errorf("identity = %q %q %q", u.ID, u.Name(), u.PhoneNumber)
		}
		if u.Username != nil || u.DefaultPayoutMethod != nil {
			t.Errorf("null username/default method decoded as %v/%v", u.Username, u.DefaultPayoutMethod)
		}
		if want := (payouts.Wallet{Amount: 12345, WithdrawableAmount: 12000}); u.Wallet != want {
			t.Errorf("wallet = %+v, want %+v", u.Wallet, want)
		}
		if want := (payouts.Compliance{TaxIDCollected: true, AddressCollected: true, Collected1099: true}); u.Compliance != want {
			t.Errorf("compliance = %+v, want %+v", u.Compliance, want)
		}
		if !u.Created.Equal(mustTime(t, "2023-05-01T12:34:56.789012Z").Time) {
			t.Errorf("created = %v", u.Created)
		}
		if string(u.Metadata) != `{"crm_id": 42}` {
			t.Errorf("metadata = %s", u.Metadata)
		}
	})

	t.Run("users list", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "users.json"))
		l, err := c.ListUsers(ctx, payouts.Page{}, payouts.UserFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if l.HasMore || len(l.Data) != 1 {
			t.Fatalf("list = %+v", l)
		}
		u := l.Data[0]
		if u.Username == nil || *u.Username != "ada-l" || u.DefaultPayoutMethod == nil || *u.DefaultPayoutMethod != payouts.PlatformVenmo {
			t.Errorf("username/default = %v/%v", u.Username, u.DefaultPayoutMethod)
		}
		if u.Compliance != (payouts.Compliance{}) || u.Wallet != (payouts.Wallet{}) {
			t.Errorf("null compliance / zero wallet = %+v %+v", u.Compliance, u.Wallet)
		}
		if !u.Created.Equal(mustTime(t, "2023-05-01T12:34:56Z").Time) {
			t.Errorf("created = %v", u.Created)
		}
	})

	t.Run("payout methods bare array", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "payout_methods.json"))
		ms, err := c.ListPayoutMethods(ctx, userID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[0].Platform != payouts.PlatformPayPal || !ms[0].Default || ms[0].Mask != "" ||
			ms[1].Platform != payouts.PlatformACH || ms[1].Mask != "6789" || !ms[1].Created.IsZero() {
			t.Errorf("methods = %+v", ms)
		}
	})

	t.Run("payout method", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "payout_method.json"))
		m, err := c.AddPayoutMethod(ctx, userID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH})
		if err != nil {
			t.Fatal(err)
		}
		if m.Platform != payouts.PlatformACH || m.Mask != "6789" || m.Email != "" || !m.Default ||
			!m.Created.Equal(mustTime(t, "2023-05-01T12:40:00.123Z").Time) {
			t.Errorf("method = %+v", m)
		}
	})

	t.Run("payout methods list object", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, `{"has_more":false,"data":`+sample(t, "payout_methods.json")+`}`)
		ms, err := c.ListPayoutMethods(ctx, userID)
		if err != nil || len(ms) != 2 {
			t.Fatalf("methods = %+v, %v", ms, err)
		}
	})

	t.Run("transfer with transactions", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "transfer.json"))
		tr, err := c.GetTransfer(ctx, "5f1e2d3c-4b5a-4968-8776-655443322110")
		if err != nil {
			t.Fatal(err)
		}
		if tr.Amount != -2500 || tr.Type != payouts.TransferPayout || tr.Status != payouts.TransferCompleted ||
			tr.UserID == nil || *tr.UserID != userID || tr.PayoutLinkID != nil || tr.ExternalData != (payouts.ExternalData{}) {
			t.Errorf("transfer = %+v", tr)
		}
		if !tr.Created.Equal(mustTime(t, "2023-05-02T08:00:00.5Z").Time) {
			t.Errorf("created = %v", tr.Created)
		}
		if len(tr.Transactions) != 2 {
			t.Fatalf("transactions = %+v", tr.Transactions)
		}
		payout, fee := tr.Transactions[0], tr.Transactions[1]
		if payout.ID != 981 || payout.Amount != 2500 || fee.ID != 982 || fee.Amount != 25 || fee.Type != payouts.TransactionFee {
			t.Errorf("transactions = %+v", tr.Transactions)
		}
		if string(fee.Metadata) != `"invoice 7"` {
			t.Errorf("string metadata = %s", fee.Metadata)
		}
		if h := tr.StatusHistory; len(h) != 2 || h[1].Status != payouts.TransferCompleted ||
			!h[1].At.Equal(mustTime(t, "2023-05-02T08:00:05Z").Time) {
			t.Errorf("status history = %+v", h)
		}
	})

	t.Run("transfers list", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "transfers.json"))
		l, err := c.ListTransfers(ctx, payouts.Page{Limit: 1}, payouts.TransferFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if !l.HasMore || len(l.Data) != 1 {
			t.Fatalf("list = %+v", l)
		}
		tr := l.Data[0]
		if tr.UserID != nil || tr.Amount != 100000 || tr.Transactions != nil || tr.ExternalData.ExternalID != "ext-1" ||
			tr.PayoutLinkID == nil || string(tr.Metadata) != "{}" {
			t.Errorf("transfer = %+v", tr)
		}
	})

	t.Run("transaction with a large integer id", func(t *testing.T) {
		c, got := sampleServer(t, http.StatusOK, sample(t, "transaction.json"))
		tx, err := c.GetTransaction(ctx, 9007199254740993)
		if err != nil {
			t.Fatal(err)
		}
		if tx.ID != 9007199254740993 || tx.Amount != -150 || tx.Type != payouts.TransactionBalance {
			t.Errorf("transaction = %+v", tx)
		}
		if p := got()[0].Path; p != "/api/v2/transactions/9007199254740993" {
			t.Errorf("path = %s", p)
		}
	})

	t.Run("payout link", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "payout_link.json"))
		l, err := c.GetPayoutLink(ctx, "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d")
		if err != nil {
			t.Fatal(err)
		}
		if l.Amount != 5000 || l.Status != payouts.LinkDeliveryPending || l.Delivery.Method != payouts.DeliverySMS ||
			l.Payee.FirstName != "Grace" || l.Payee.LastName != "" || l.TaxExempt || l.Memo != "" ||
			l.ClaimedUserID != nil || l.FlowID == nil || l.TransferID != nil {
			t.Errorf("link = %+v", l)
		}
		if !l.Created.Equal(mustTime(t, "2023-05-04T10:00:00.000001Z").Time) {
			t.Errorf("created = %v", l.Created)
		}
	})

	t.Run("flow", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "flow.json"))
		f, err := c.GetFlow(ctx, "3d2c1b0a-9f8e-4d7c-6b5a-4f3e2d1c0b9a")
		if err != nil {
			t.Fatal(err)
		}
		if f.UserID != nil || len(f.Steps) != 2 || f.CompletedSteps != nil || f.Done() || f.Link == "" {
			t.Errorf("flow = %+v", f)
		}
	})

	t.Run("app stats", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "app_stats.json"))
		st, err := c.GetAppStats(ctx, "a1", 2, "")
		if err != nil {
			t.Fatal(err)
		}
		if st.Wallet.Amount != 750000 || st.Flagged != 1 || st.Pending != 2 || len(st.Days) != 2 ||
			st.Days[0].Deposits != 100000 || st.Today != st.Days[1] || st.Today.ToUsers != 3000 {
			t.Errorf("stats = %+v", st)
		}
	})

	t.Run("app", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, sample(t, "app.json"))
		a, err := c.GetApp(ctx, "1e2d3c4b-5a69-4788-9766-554433221100")
		if err != nil {
			t.Fatal(err)
		}
		if a.Name != "Acme Payroll" || a.Wallet.Amount != 750000 || a.Wallet.Reserved() != 50000 || !a.Created.IsZero() {
			t.Errorf("app = %+v", a)
		}
	})
}

// TestSuccessStatuses checks that creates accept 200, 201 and 202, that endpoints without an
// answer body accept any 2xx with or without one, and that an object call answered without a
// body is an error rather than an empty object.
func TestSuccessStatuses(t *testing.T) {
	ctx := context.Background()
	user := sample(t, "user.json")
	for _, status := range []int{http.StatusOK, http.StatusCreated, http.StatusAccepted} {
		t.Run("create user "+http.StatusText(status), func(t *testing.T) {
			c, _ := sampleServer(t, status, user)
			u, err := c.CreateUser(ctx, payouts.CreateUserRequest{FirstName: "Ada"})
			if err != nil || u.Email != "ada@example.com" {
				t.Fatalf("CreateUser = %+v, %v", u, err)
			}
		})
	}
	bodiless := []struct {
		status int
		body   string
	}{
		{http.StatusAccepted, ""},
		{http.StatusNoContent, ""},
		{http.StatusOK, ""},
		{http.StatusOK, `{"success": true}`},
		{http.StatusOK, "null"},
	}
	for _, b := range bodiless {
		t.Run("bodiless "+http.StatusText(b.status)+" "+b.body, func(t *testing.T) {
			c, _ := sampleServer(t, b.status, b.body)
			if err := c.SendVerificationToken(ctx, "u1", payouts.SendVerificationTokenRequest{}); err != nil {
				t.Errorf("SendVerificationToken: %v", err)
			}
			if err := c.VerifyUser(ctx, "u1", payouts.VerifyUserRequest{Token: "123456"}); err != nil {
				t.Errorf("VerifyUser: %v", err)
			}
			if err := c.SubmitCompliance(ctx, "u1", payouts.ComplianceRequest{W9: &payouts.W9{}}); err != nil {
				t.Errorf("SubmitCompliance: %v", err)
			}
		})
	}
	for _, body := range []string{"", "  \n", "null"} {
		t.Run("object call without a body "+body, func(t *testing.T) {
			c, _ := sampleServer(t, http.StatusOK, body)
			u, err := c.GetUser(ctx, "u1")
			if err == nil {
				t.Fatalf("GetUser = %+v, want an error", u)
			}
			var apiErr *payouts.Error
			if errors.As(err, &apiErr) {
				t.Errorf("a malformed success is not a service error: %v", err)
			}
		})
	}
	t.Run("malformed amount", func(t *testing.T) {
		c, _ := sampleServer(t, http.StatusOK, strings.Replace(user, `"12345"`, `"12.345"`, 1))
		if _, err := c.GetUser(ctx, "u1"); err == nil || !strings.Contains(err.Error(), "amount") {
			t.Errorf("GetUser with a fractional amount: %v", err)
		}
	})
}
