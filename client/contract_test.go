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
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

// The contract tests run every method against the real Payout Service, started in-process on
// SQLite with servicetest: the wire format of both sides is checked together, success and error
// paths. servicetest fails a test when the service answers anything with a 5xx or when a ledger
// does not balance at the end.

// startService starts the service and returns it with a client holding its first app's
// credentials. Retries wait little, so that a retried test stays quick.
func startService(t *testing.T) (*servicetest.Env, *client.Client) {
	t.Helper()
	env := servicetest.Start(t)
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
	env, c := startService(t)
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
		st, err := c.GetAppStats(ctx, env.AppID, 7)
		if err != nil {
			t.Fatal(err)
		}
		if st.Wallet != now.Wallet || len(st.Days) != 7 || st.Today != st.Days[6] || st.Today.Deposits < 100_000 {
			t.Errorf("stats = %+v, want 7 days and today's deposits", st)
		}
		if st, err := c.GetAppStats(ctx, env.AppID, 0); err != nil || len(st.Days) != 30 {
			t.Errorf("default window = %d days, %v; want 30", len(st.Days), err)
		}
		_, err = c.GetAppStats(ctx, env.AppID, 1000)
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "days")
		other := env.CreateApp(t, "Stats other")
		_, err = c.GetAppStats(ctx, other.AppID, 7)
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
}

func TestContractUsers(t *testing.T) {
	env, c := startService(t)
	ctx := context.Background()

	req := newUserRequest("Ada")
	req.Username = "ada-t"
	req.Metadata = json.RawMessage(`{"crm":7}`)
	u, err := c.CreateUser(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !payouts.ValidID(u.ID) || u.FirstName != "Ada" || u.Email != req.Email || u.Status != payouts.UserUnverified ||
		u.PhoneNumber != (payouts.Phone{CountryCode: "1", PhoneNumber: req.PhoneNumber}) ||
		u.Username == nil || *u.Username != "ada-t" || u.Created.IsZero() {
		t.Errorf("created user = %+v", u)
	}
	var md map[string]int
	if err := json.Unmarshal(u.Metadata, &md); err != nil || md["crm"] != 7 {
		t.Errorf("metadata = %s", u.Metadata)
	}

	got, err := c.GetUser(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != u.ID || got.Email != u.Email || !got.Created.Equal(u.Created.Time) {
		t.Errorf("GetUser = %+v, want the created %+v", got, u)
	}

	updated, err := c.UpdateUser(ctx, u.ID, payouts.UpdateUserRequest{Metadata: json.RawMessage(`"vip"`)})
	if err != nil || string(updated.Metadata) != `"vip"` {
		t.Errorf("UpdateUser metadata = %+v, %v", updated, err)
	}

	t.Run("list and walk", func(t *testing.T) {
		grace := createUser(t, c, "Grace")
		alan := createUser(t, c, "Alan")
		page, err := c.ListUsers(ctx, payouts.Page{Limit: 2}, payouts.UserFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if !page.HasMore || len(page.Data) != 2 || page.Data[0].ID != alan.ID || page.Data[1].ID != grace.ID {
			t.Errorf("first page = %+v, want Alan, Grace and more", page)
		}
		next, err := c.ListUsers(ctx, payouts.Page{Limit: 2, StartingAfter: grace.ID}, payouts.UserFilter{})
		if err != nil || next.HasMore || len(next.Data) != 1 || next.Data[0].ID != u.ID {
			t.Errorf("second page = %+v, %v; want Ada alone", next, err)
		}
		back, err := c.ListUsers(ctx, payouts.Page{Limit: 2, EndingBefore: u.ID}, payouts.UserFilter{})
		if err != nil || len(back.Data) != 2 {
			t.Errorf("ending_before page = %+v, %v", back, err)
		}
		found, err := c.ListUsers(ctx, payouts.Page{}, payouts.UserFilter{Search: "grace"})
		if err != nil || len(found.Data) != 1 || found.Data[0].ID != grace.ID {
			t.Errorf("search = %+v, %v", found, err)
		}
		unverified, err := c.ListUsers(ctx, payouts.Page{}, payouts.UserFilter{Status: payouts.UserVerified})
		if err != nil || len(unverified.Data) != 0 {
			t.Errorf("verified users = %+v, %v; want none", unverified, err)
		}
		var walked []string
		for user, err := range c.AllUsers(ctx, payouts.UserFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			walked = append(walked, user.ID)
		}
		if strings.Join(walked, ",") != strings.Join([]string{alan.ID, grace.ID, u.ID}, ",") {
			t.Errorf("AllUsers = %v", walked)
		}
	})

	t.Run("verification", func(t *testing.T) {
		if err := c.SendVerificationToken(ctx, u.ID, payouts.SendVerificationTokenRequest{}); err != nil {
			t.Fatal(err)
		}
		msgs := env.Inbox.Messages()
		if len(msgs) == 0 {
			t.Fatal("no verification message sent")
		}
		token := digitsRun(msgs[len(msgs)-1].Body, 6)
		if token == "" {
			t.Fatalf("no token in %q", msgs[len(msgs)-1].Body)
		}
		err := c.VerifyUser(ctx, u.ID, payouts.VerifyUserRequest{Token: "000000x"})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput)
		if err := c.VerifyUser(ctx, u.ID, payouts.VerifyUserRequest{Token: token}); err != nil {
			t.Fatalf("VerifyUser with the sent token: %v", err)
		}
		if v, err := c.GetUser(ctx, u.ID); err != nil || !v.Verified {
			t.Errorf("after verification: %+v, %v", v, err)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := c.CreateUser(ctx, payouts.CreateUserRequest{})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "first_name", "email", "phone_number")
		dup := newUserRequest("Dup")
		dup.Email = req.Email
		_, err = c.CreateUser(ctx, dup)
		wantError(t, err, http.StatusConflict, payouts.EEmailExists)

		for _, id := range []string{"6f1e2d3c-4b5a-4968-8776-655443322110", "not-a-uuid"} {
			_, err = c.GetUser(ctx, id)
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.UpdateUser(ctx, id, payouts.UpdateUserRequest{})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			_, err = c.DeleteUser(ctx, id)
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			err = c.SendVerificationToken(ctx, id, payouts.SendVerificationTokenRequest{})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
			err = c.VerifyUser(ctx, id, payouts.VerifyUserRequest{Token: "123456"})
			wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		}
		venmo := payouts.PlatformVenmo
		_, err = c.UpdateUser(ctx, u.ID, payouts.UpdateUserRequest{DefaultPayoutMethod: &venmo})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "default_payout_method")

		_, err = c.ListUsers(ctx, payouts.Page{Limit: 101}, payouts.UserFilter{})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "limit")
		_, err = c.ListUsers(ctx, payouts.Page{}, payouts.UserFilter{Status: "sleeping"})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "status")

		other := env.CreateApp(t, "Other")
		_, err = newClient(t, env.URL, other.ClientID, other.APIKey).GetUser(ctx, u.ID)
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})

	t.Run("delete", func(t *testing.T) {
		rich := createUser(t, c, "Rich")
		deposit(t, env, c, 1_000)
		fundUser(t, c, rich.ID, 1_000)
		_, err := c.DeleteUser(ctx, rich.ID)
		wantError(t, err, http.StatusUnprocessableEntity, payouts.EInvalidTransaction)

		gone, err := c.DeleteUser(ctx, u.ID)
		if err != nil || gone.ID != u.ID {
			t.Fatalf("DeleteUser = %+v, %v", gone, err)
		}
		_, err = c.GetUser(ctx, u.ID)
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}

// digitsRun returns the first run of at least n digits in s.
func digitsRun(s string, n int) string {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= n {
			return s[start:i]
		}
		start = -1
	}
	return ""
}

func TestContractPayoutMethods(t *testing.T) {
	_, c := startService(t)
	ctx := context.Background()
	u := createUser(t, c, "Ada")

	paypal, err := c.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal,
		Email: "ada.paypal@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if paypal.Platform != payouts.PlatformPayPal || paypal.Email != "ada.paypal@example.com" || paypal.ID == "" {
		t.Errorf("paypal = %+v", paypal)
	}
	ach, err := c.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
		RoutingNumber: "011000015", AccountNumber: "000123456789", AccountType: payouts.AccountChecking, IsDefault: true})
	if err != nil {
		t.Fatal(err)
	}
	if ach.Mask != "6789" || !ach.Default || strings.Contains(fmt.Sprintf("%+v", ach), "000123456789") {
		t.Errorf("ach = %+v: want the mask only, and default", ach)
	}

	methods, err := c.ListPayoutMethods(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	platforms := map[payouts.Platform]bool{}
	for _, m := range methods {
		platforms[m.Platform] = true
	}
	if len(methods) != 2 || !platforms[payouts.PlatformPayPal] || !platforms[payouts.PlatformACH] {
		t.Errorf("methods = %+v", methods)
	}
	if got, err := c.GetUser(ctx, u.ID); err != nil || got.DefaultPayoutMethod == nil || *got.DefaultPayoutMethod != payouts.PlatformACH {
		t.Errorf("default after is_default = %+v, %v", got, err)
	}
	pp := payouts.PlatformPayPal
	if got, err := c.UpdateUser(ctx, u.ID, payouts.UpdateUserRequest{DefaultPayoutMethod: &pp}); err != nil ||
		got.DefaultPayoutMethod == nil || *got.DefaultPayoutMethod != pp {
		t.Errorf("UpdateUser default = %+v, %v", got, err)
	}

	t.Run("errors", func(t *testing.T) {
		_, err := c.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
			RoutingNumber: "123456789", AccountNumber: "12", AccountType: "loan"})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "routing_number", "account_number", "account_type")
		_, err = c.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: "carrier-pigeon"})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "platform")
		unknown := "6f1e2d3c-4b5a-4968-8776-655443322110"
		_, err = c.AddPayoutMethod(ctx, unknown, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "x@example.com"})
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
		_, err = c.ListPayoutMethods(ctx, unknown)
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}

func TestContractCompliance(t *testing.T) {
	_, c := startService(t)
	ctx := context.Background()
	u := createUser(t, c, "Ada")
	w9 := payouts.W9{EntityType: payouts.EntityIndividual, FirstName: "Ada", LastName: "Tester", DateOfBirth: "1990-12-10",
		TIN: "123456789", Address: payouts.Address{Line1: "1 Main St", City: "Springfield", State: "IL", Country: "US", Postcode: "62701"}}
	if err := c.SubmitCompliance(ctx, u.ID, payouts.ComplianceRequest{W9: &w9}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetUser(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Compliance.TaxIDCollected || !got.Compliance.AddressCollected || !got.Compliance.DateOfBirthCollected {
		t.Errorf("compliance after a W-9 = %+v", got.Compliance)
	}

	t.Run("errors", func(t *testing.T) {
		err := c.SubmitCompliance(ctx, u.ID, payouts.ComplianceRequest{})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "w9")
		bad := w9
		bad.TIN = "12"
		err = c.SubmitCompliance(ctx, u.ID, payouts.ComplianceRequest{W9: &bad})
		wantError(t, err, http.StatusBadRequest, payouts.EInvalidInput, "w9.tin")
		err = c.SubmitCompliance(ctx, "6f1e2d3c-4b5a-4968-8776-655443322110", payouts.ComplianceRequest{W9: &w9})
		wantError(t, err, http.StatusNotFound, payouts.ENotFound)
	})
}

func TestContractTransfersAndTransactions(t *testing.T) {
	env, c := startService(t)
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
}
