package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/payouts"
)

func TestContractUsers(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c := startService(t, servicetest.WithDSN(dsn))
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
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		_, c := startService(t, servicetest.WithDSN(dsn))
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
	})
}

func TestContractCompliance(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		_, c := startService(t, servicetest.WithDSN(dsn))
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
	})
}

// publicW9 and publicW8BEN are the compliance forms as the public Dots API's models declare them
// (its SDK's users_submit_compliance_info_request_w9 / _w8_ben): the W-9 with its required
// fields only, the W-8BEN with every field, the treaty claim included.
func publicW9() map[string]any {
	return map[string]any{"entity_type": "individual", "date_of_birth": "1990-12-10", "tin": "123456789",
		"address": map[string]any{"line_1": "1 Main St", "city": "Springfield", "state": "IL", "country": "US", "postcode": "62701"}}
}

func publicW8BEN() map[string]any {
	return map[string]any{"name": "Ada Lovelace", "citizenship_country": "GB", "date_of_birth": "1990-12-10",
		"tin": "912-70-1234", "foreign_tax_id": "AB123456C",
		"address":            map[string]any{"line_1": "12 St James's Sq", "line_2": "Flat 3", "city": "London", "state": "London", "country": "GB", "postcode": "SW1Y 4JH"},
		"signature":          map[string]any{"consent": true, "name": "Ada Lovelace", "email": "ada@example.com"},
		"tax_treaty_country": "GB", "tax_treaty_citation": "Article 11, paragraph 1", "tax_treaty_rate": 0.15,
		"tax_treaty_income_type": "interest1", "tax_treaty_explanation": "Resident of the UK under the treaty."}
}

// TestContractCompliancePublicShapes sends PUT /v2/users/{id}/compliance with the public field
// names, exactly, on both engines: both forms are accepted, set the user's flags, and read back
// field for field; the public W-8BEN needs tin, not foreign_tax_id; a bad treaty claim is a
// field problem.
func TestContractCompliancePublicShapes(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		env, c := startService(t, servicetest.WithDSN(dsn))
		ctx := context.Background()
		for _, tc := range []struct {
			form string
			body map[string]any
		}{{"w9", publicW9()}, {"w8ben", publicW8BEN()}} {
			t.Run(tc.form, func(t *testing.T) {
				u := createUser(t, c, "Ada")
				r := env.Do(t, http.MethodPut, "/v2/users/"+u.ID+"/compliance", map[string]any{tc.form: tc.body})
				if r.Status != http.StatusOK {
					t.Fatalf("PUT compliance: %d %s", r.Status, r.Body)
				}
				got, err := env.Service.TaxForm(ctx, env.AppID, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := json.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				var back map[string]map[string]any
				if err := json.Unmarshal(raw, &back); err != nil {
					t.Fatal(err)
				}
				sent, _ := json.Marshal(tc.body)
				kept, _ := json.Marshal(back[tc.form])
				var a, b any
				json.Unmarshal(sent, &a)
				json.Unmarshal(kept, &b)
				if fmt.Sprint(a) != fmt.Sprint(b) || len(back) != 1 {
					t.Errorf("read back %s\nwant      %s", kept, sent)
				}
				user, err := c.GetUser(ctx, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				if flag := map[string]bool{"w9": user.Compliance.Collected1099, "w8ben": user.Compliance.W8BENCollected}[tc.form]; !flag {
					t.Errorf("compliance after a %s = %+v", tc.form, user.Compliance)
				}
			})
		}
		u := createUser(t, c, "Bea")
		for _, tc := range []struct {
			name, field string
			change      func(map[string]any)
		}{
			{"no tin, a foreign tax id", "w8ben.tin", func(f map[string]any) { delete(f, "tin") }},
			{"a rate above 1", "w8ben.tax_treaty_rate", func(f map[string]any) { f["tax_treaty_rate"] = 15 }},
			{"an income type not listed", "w8ben.tax_treaty_income_type", func(f map[string]any) { f["tax_treaty_income_type"] = "wages" }},
			{"a country by name", "w8ben.tax_treaty_country", func(f map[string]any) { f["tax_treaty_country"] = "United Kingdom" }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				form := publicW8BEN()
				tc.change(form)
				var req payouts.ComplianceRequest
				raw, _ := json.Marshal(map[string]any{"w8ben": form})
				if err := json.Unmarshal(raw, &req); err != nil {
					t.Fatal(err)
				}
				wantError(t, c.SubmitCompliance(ctx, u.ID, req), http.StatusBadRequest, payouts.EInvalidInput, tc.field)
			})
		}
		// Without foreign_tax_id the public form is whole.
		form := publicW8BEN()
		delete(form, "foreign_tax_id")
		if r := env.Do(t, http.MethodPut, "/v2/users/"+u.ID+"/compliance", map[string]any{"w8ben": form}); r.Status != http.StatusOK {
			t.Errorf("a W-8BEN without foreign_tax_id: %d %s", r.Status, r.Body)
		}
	})
}
