package service_test

import (
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/payouts"
)

func TestVerification(t *testing.T) {
	e := newEnv(t, 0)
	send := func() string {
		t.Helper()
		if err := e.svc.SendVerificationToken(e.ctx, e.app, e.user.ID, payouts.SendVerificationTokenRequest{}); err != nil {
			t.Fatal(err)
		}
		msgs, _ := e.svc.Inbox(e.ctx, e.app, 1)
		body := msgs[0].Body
		i := strings.Index(body, "is ")
		return body[i+3 : i+9]
	}
	token := send()
	wantCode(t, e.svc.SendVerificationToken(e.ctx, e.app, e.user.ID, payouts.SendVerificationTokenRequest{}), payouts.ETooManyRequests)
	wrong := "000000"
	if token == wrong {
		wrong = "111111"
	}
	for i := 0; i < 4; i++ {
		wantCode(t, e.svc.VerifyUser(e.ctx, e.app, e.user.ID, payouts.VerifyUserRequest{Token: wrong}), payouts.EInvalidInput)
	}
	if err := e.svc.VerifyUser(e.ctx, e.app, e.user.ID, payouts.VerifyUserRequest{Token: token}); err != nil {
		t.Fatalf("the right token on the 5th try: %v", err)
	}
	u, _ := e.svc.GetUser(e.ctx, e.app, e.user.ID)
	if !u.Verified || u.Status != payouts.UserVerified {
		t.Fatalf("user after verify: %+v", u)
	}

	e.clock.Advance(30 * time.Second)
	token = send()
	for i := 0; i < 5; i++ {
		e.svc.VerifyUser(e.ctx, e.app, e.user.ID, payouts.VerifyUserRequest{Token: wrong})
	}
	wantCode(t, e.svc.VerifyUser(e.ctx, e.app, e.user.ID, payouts.VerifyUserRequest{Token: token}), payouts.EInvalidInput)

	e.clock.Advance(30 * time.Second)
	token = send()
	e.clock.Advance(10*time.Minute + time.Second)
	wantCode(t, e.svc.VerifyUser(e.ctx, e.app, e.user.ID, payouts.VerifyUserRequest{Token: token}), payouts.EInvalidInput)
	wantCode(t, e.svc.VerifyUser(e.ctx, e.app, e.user.ID, payouts.VerifyUserRequest{Token: "12"}), payouts.EInvalidInput)
}

// Test1099Threshold pays a user across the year's threshold: payouts then need a W-9 first.
func Test1099Threshold(t *testing.T) {
	e := newEnv(t, 1_000_000)
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "ada@example.com"})
	pay := func(amount int64, exempt bool) {
		t.Helper()
		if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: e.user.ID, Amount: -amount, TaxExempt: exempt}); err != nil {
			t.Fatal(err)
		}
	}
	pay(150_000, false)
	pay(500_000, true) // tax-exempt payments do not count
	u, _ := e.svc.GetUser(e.ctx, e.app, e.user.ID)
	if u.Compliance.MustCollect1099 {
		t.Fatal("below the 2026 threshold of $2,000 a W-9 is not needed yet")
	}
	pay(50_000, false) // reaches $2,000
	u, _ = e.svc.GetUser(e.ctx, e.app, e.user.ID)
	if !u.Compliance.MustCollect1099 {
		t.Fatal("at $2,000 in 2026 the W-9 must be collected")
	}
	_, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "paypal"})
	wantCode(t, err, payouts.EUserInfoMissing)
	w9 := payouts.W9{EntityType: "individual", FirstName: "Ada", LastName: "Lovelace", DateOfBirth: "1990-12-10",
		TIN: "123-45-6789", Address: payouts.Address{Line1: "1 Main St", City: "Springfield", State: "IL", Country: "US", Postcode: "62701"}}
	if err := e.svc.SubmitCompliance(e.ctx, e.app, e.user.ID, payouts.ComplianceRequest{W9: &w9}); err != nil {
		t.Fatal(err)
	}
	u, _ = e.svc.GetUser(e.ctx, e.app, e.user.ID)
	if u.Compliance.MustCollect1099 || !u.Compliance.Collected1099 || !u.Compliance.TaxIDCollected {
		t.Fatalf("compliance after the W-9: %+v", u.Compliance)
	}
	if _, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: e.user.ID, Amount: 100, Platform: "paypal"}); err != nil {
		t.Fatal(err)
	}
}

// TestSecretsSealed reads the database file raw: no TIN or account number is in it in clear.
func TestSecretsSealed(t *testing.T) {
	e := newEnv(t, 0)
	e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: "ach", RoutingNumber: "011000015", AccountNumber: "98765432101", AccountType: "checking"})
	w9 := payouts.W9{EntityType: "individual", FirstName: "Ada", LastName: "Lovelace", DateOfBirth: "1990-12-10",
		TIN: "987654321", Address: payouts.Address{Line1: "1 Main St", City: "Springfield", State: "IL", Country: "US", Postcode: "62701"}}
	if err := e.svc.SubmitCompliance(e.ctx, e.app, e.user.ID, payouts.ComplianceRequest{W9: &w9}); err != nil {
		t.Fatal(err)
	}
	methods, _ := e.svc.ListPayoutMethods(e.ctx, e.app, e.user.ID)
	if methods[0].Mask != "2101" || strings.Contains(methods[0].Description, "98765432101") {
		t.Fatalf("method shows more than the last 4: %+v", methods[0])
	}
	db := e.st.DB()
	for _, secret := range []string{"98765432101", "987654321"} {
		for _, q := range []string{`SELECT count(*) FROM payout_methods WHERE CAST(sealed_account AS TEXT) LIKE ? OR mask LIKE ? OR description LIKE ?`,
			`SELECT count(*) FROM tax_forms WHERE CAST(sealed AS TEXT) LIKE ? OR tin_last4 LIKE ? OR kind LIKE ?`} {
			var n int
			p := "%" + secret + "%"
			if err := db.QueryRow(q, p, p, p).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%q found in clear (%d rows, %v)", secret, n, err)
			}
		}
	}
}

func TestCreateUserCodes(t *testing.T) {
	e := newEnv(t, 0)
	base := payouts.CreateUserRequest{FirstName: "A", LastName: "B", Email: "new@example.com", CountryCode: "1", PhoneNumber: "4155550199"}
	tests := []struct {
		name string
		edit func(*payouts.CreateUserRequest)
		code string
	}{
		{"bad email", func(r *payouts.CreateUserRequest) { r.Email = "nope" }, payouts.EInvalidEmail},
		{"bad phone", func(r *payouts.CreateUserRequest) { r.PhoneNumber = "12ab" }, payouts.EInvalidPhone},
		{"bad country code", func(r *payouts.CreateUserRequest) { r.CountryCode = "+1234" }, payouts.EInvalidPhone},
		{"bad username", func(r *payouts.CreateUserRequest) { r.Username = "no spaces" }, payouts.EInvalidUsername},
		{"missing names", func(r *payouts.CreateUserRequest) { r.FirstName, r.LastName = "", "" }, payouts.EInvalidInput},
		{"email taken", func(r *payouts.CreateUserRequest) { r.Email = "ADA@example.com" }, payouts.EEmailExists},
		{"metadata array", func(r *payouts.CreateUserRequest) { r.Metadata = payouts.Metadata(`[1]`) }, payouts.EInvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := base
			tc.edit(&req)
			_, err := e.svc.CreateUser(e.ctx, e.app, req)
			wantCode(t, err, tc.code)
		})
	}
}
