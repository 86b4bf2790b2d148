package service_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/phonecases"
	"github.com/disburse/disburse/payouts"
)

// TestPhoneRoundTrip writes every number of the phone table as a user's, a payout link payee's
// and a Venmo method's (taken for a US number alone), and reads each back from the store: a valid number
// keeps its country (E.164 and national form as the table says); an invalid one is a 400 naming
// its field, and nothing is written. On both engines.
func TestPhoneRoundTrip(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 1000000)
		for i, tc := range phonecases.All {
			t.Run(tc.Name, func(t *testing.T) {
				u, err := e.svc.CreateUser(e.ctx, e.app, payouts.CreateUserRequest{FirstName: "Pat", LastName: "Phone",
					Email: fmt.Sprintf("phone%d@example.com", i), CountryCode: cmpOr(tc.CC, "1"), PhoneNumber: tc.Number})
				link, _, linkErr := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 100,
					Payee: &payouts.Payee{CountryCode: tc.CC, PhoneNumber: tc.Number}})
				if tc.E164 == "" {
					var perr *payouts.Error
					if !errors.As(err, &perr) || payouts.ErrorCode(err) != payouts.EInvalidPhone || perr.Fields[tc.ProblemField] == "" {
						t.Fatalf("CreateUser = %v, %v; want invalid-phone-number on %s", u, err, tc.ProblemField)
					}
					if !errors.As(linkErr, &perr) || perr.Fields["payee."+tc.ProblemField] == "" {
						t.Fatalf("CreatePayoutLink = %v; want a problem on payee.%s", linkErr, tc.ProblemField)
					}
					return
				}
				if err != nil || linkErr != nil {
					t.Fatalf("CreateUser: %v; CreatePayoutLink: %v", err, linkErr)
				}
				got, err := e.svc.GetUser(e.ctx, e.app, u.ID)
				if err != nil || got.PhoneNumber.E164() != tc.E164 || got.PhoneNumber.National() != tc.National {
					t.Errorf("the user's number reads back as %+v (%v), want %s, %s", got.PhoneNumber, err, tc.E164, tc.National)
				}
				l, err := e.svc.GetPayoutLink(e.ctx, e.app, link.ID)
				payee := payouts.Phone{CountryCode: l.Payee.CountryCode, PhoneNumber: l.Payee.PhoneNumber}
				if err != nil || payee.E164() != tc.E164 {
					t.Errorf("the payee's number reads back as %+v (%v), want %s", payee, err, tc.E164)
				}
				if !strings.HasPrefix(tc.Number, "+") && tc.CC != "" && tc.CC != "1" {
					return // a Venmo method has no country code field: its number reads as US unless it says +CC
				}
				m, err := e.svc.AddPayoutMethod(e.ctx, e.app, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformVenmo,
					PhoneNumber: tc.Number})
				us := strings.HasSuffix(tc.National, "(US)")
				if us != (err == nil) {
					t.Fatalf("a Venmo method of %s: %v; want it taken only for a US number", tc.Number, err)
				}
				if !us {
					if payouts.ErrorCode(err) != payouts.EInvalidInput {
						t.Fatalf("a Venmo method of %s: %v, want a 400", tc.Number, err)
					}
					return
				}
				methods, err := e.svc.ListPayoutMethods(e.ctx, e.app, u.ID)
				if err != nil || len(methods) != 1 || methods[0].ID != m.ID || methods[0].PhoneNumber != tc.E164 {
					t.Errorf("the Venmo method reads back as %+v (%v), want %s", methods, err, tc.E164)
				}
			})
		}
	})
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// TestPhoneMigration runs migration 0027 over Venmo numbers stored as the service stored them
// before (digits, the country dropped): the one unambiguous shape, eleven digits starting with
// 1, gets its "+"; ten digits, which may be any country's (a UK +44 20 7946 0958 became
// 2079460958), are left as they were and need review: not valid E.164, so the PayPal rail
// refuses them rather than guess. On both engines.
func TestPhoneMigration(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 0)
		for _, tc := range []struct {
			stored, want string
			review       bool
		}{
			{"14082341234", "+14082341234", false},
			{"2079460958", "2079460958", true},
			{"4082341234", "4082341234", true},
			{"5550100", "5550100", true},
			{"+14155552671", "+14155552671", false},
		} {
			t.Run(tc.stored, func(t *testing.T) {
				m := e.addMethod(t, e.user.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformVenmo, Handle: "legacy-" + tc.want[len(tc.want)-4:]})
				db := e.st.DB()
				for _, stmt := range []string{`UPDATE payout_methods SET phone_number = ?, handle = '' WHERE id = ?`,
					`DELETE FROM schema_migrations WHERE name = ?`} {
					args := []any{tc.stored, m.ID}
					if strings.HasPrefix(stmt, "DELETE") {
						args = []any{"0027_phone_e164.sql"}
					}
					if _, err := db.ExecContext(e.ctx, db.Rebind(stmt), args...); err != nil {
						t.Fatal(err)
					}
				}
				e.open(t) // the migration runs again, over the number as stored before it
				methods, err := e.svc.ListPayoutMethods(e.ctx, e.app, e.user.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, got := range methods {
					if got.ID != m.ID {
						continue
					}
					_, verr := payouts.StoredVenmoPhone(got.PhoneNumber)
					needsReview := verr != nil
					if got.PhoneNumber != tc.want || needsReview != tc.review {
						t.Errorf("stored %q migrated to %q (needs review %v), want %q (%v)", tc.stored, got.PhoneNumber, needsReview,
							tc.want, tc.review)
					}
					return
				}
				t.Fatalf("method %s not listed", m.ID)
			})
		}
	})
}
