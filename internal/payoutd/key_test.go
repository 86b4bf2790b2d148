package payoutd_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/servicetest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

var (
	madeWithKey = bytes.Repeat([]byte{7}, payoutd.KeySize)
	anotherKey  = bytes.Repeat([]byte{9}, payoutd.KeySize)
)

// sealing is what a sealer seals with: a server on the database, its app, the server's key and
// the clock the server runs on.
type sealing struct {
	srv   *payoutd.Server
	app   string
	key   []byte
	clock *testclock.Clock
}

// sealers each give a database one value of a kind the service seals, under the server's key.
var sealers = []struct {
	name string
	seal func(t *testing.T, s sealing)
}{
	{"webhook secret", func(t *testing.T, s sealing) {
		_, err := s.srv.Service().CreateWebhookEndpoint(context.Background(), s.app,
			payouts.CreateWebhookEndpointRequest{URL: "https://hooks.example.com/in"})
		must(t, err)
	}},
	{"account number of a payee's bank", func(t *testing.T, s sealing) {
		_, err := s.srv.Service().AddPayoutMethod(context.Background(), s.app, payee(t, s.srv, s.app, "Bank", "4155550148"),
			payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH, RoutingNumber: "110000000",
				AccountNumber: "000123456789", AccountType: payouts.AccountChecking})
		must(t, err)
	}},
	{"tax form", func(t *testing.T, s sealing) {
		w9 := payouts.W9{EntityType: payouts.EntityIndividual, FirstName: "Kay", LastName: "Key", DateOfBirth: "1990-01-01",
			TIN: "123-45-6789", Address: payouts.Address{Line1: "1 Main", City: "X", State: "NY", Country: "US", Postcode: "10001"}}
		must(t, s.srv.Service().SubmitCompliance(context.Background(), s.app, payee(t, s.srv, s.app, "Tax", "4155550149"), payouts.ComplianceRequest{W9: &w9}))
	}},
	{"app's bank account", func(t *testing.T, s sealing) {
		_, err := s.srv.Service().SetACHAccount(context.Background(), s.app, s.app, payouts.ACHAccountRequest{AccountNumber: "123456789",
			RoutingNumber: "011000015", AccountType: payouts.AccountChecking})
		must(t, err)
	}},
	{"app's compliance", func(t *testing.T, s sealing) {
		address := payouts.PostalAddress{Line1: "1 Road", City: "Austin", State: "TX", Zip: "73301", Country: "US"}
		_, err := s.srv.Service().SetAppCompliance(context.Background(), s.app, s.app, payouts.BusinessCompliance{
			CompanyInfo: payouts.CompanyInfo{Name: "Shop Inc", EIN: "987654321", IncorporationDate: "2020-01-02",
				IncorporationState: "TX", IncorporationType: "c_corporation", Website: "https://shop.test"},
			ContactInfo: payouts.ContactInfo{Email: "t@shop.test", PhoneNumber: "5125550100", PostalAddress: address},
			Directors: []payouts.Director{{FirstName: "Bo", LastName: "Li", Title: "CEO", Email: "bo@shop.test",
				Phone: "5125550101", DOB: "1979-05-06", OwnershipPercentage: "100", Address: address}},
			FlowOfFunds: payouts.FlowOfFunds{Reasons: "refunds", Usage: "shop"},
		})
		must(t, err)
	}},
	{"1099-NEC form", func(t *testing.T, s sealing) {
		ctx, svc := context.Background(), s.srv.Service()
		_, err := svc.SetAppCompliance(ctx, s.app, s.app, servicetest.Payer())
		must(t, err)
		user := payee(t, s.srv, s.app, "Nec", "4155550150")
		must(t, svc.SubmitCompliance(ctx, s.app, user, payouts.ComplianceRequest{W9: &payouts.W9{EntityType: payouts.EntityIndividual,
			FirstName: "Nec", LastName: "Key", DateOfBirth: "1990-01-01", TIN: "401123456",
			Address: payouts.Address{Line1: "1 Main", City: "Austin", State: "TX", Country: "US", Postcode: "73301"}}}))
		_, err = svc.AddPayoutMethod(ctx, s.app, user, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: "nec@example.com"})
		must(t, err)
		_, err = svc.Deposit(ctx, s.app, s.app, payouts.DepositRequest{Amount: 3000_00})
		must(t, err)
		_, err = svc.CreatePayout(ctx, s.app, payouts.CreatePayoutRequest{UserID: user, Amount: 2500_00, Platform: payouts.PlatformPayPal, Fund: true})
		must(t, err)
		s.clock.Advance(time.Minute)
		_, err = svc.SettleDue(ctx, 10)
		must(t, err)
		run, err := svc.GenerateForms1099(ctx, s.app, 2026)
		must(t, err)
		if len(run.Written) != 1 {
			t.Fatalf("no 1099-NEC form sealed: %+v", run)
		}
		// The W-9 and the payer's compliance the form was made from are kinds of their own: gone,
		// the form is the only sealed value a wrong key could be caught on.
		must(t, s.srv.Store().DB().InTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.Exec(`DELETE FROM tax_forms`); err != nil {
				return err
			}
			_, err := tx.Exec(`UPDATE apps SET compliance_sealed = NULL`)
			return err
		}))
	}},
	{"sandbox message", func(t *testing.T, s sealing) {
		inbox := sandbox.Inbox{Store: s.srv.Store(), Key: s.key}
		must(t, inbox.Send(context.Background(), service.Message{AppID: s.app, Channel: "email", To: "kay@example.com",
			Subject: "Your code", Body: "123456"}))
	}},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// payee makes a payee called name, reached at phone.
func payee(t *testing.T, srv *payoutd.Server, app, name, phone string) string {
	t.Helper()
	u, err := srv.Service().CreateUser(context.Background(), app, payouts.CreateUserRequest{FirstName: name, LastName: "Key",
		Email: strings.ToLower(name) + "@example.com", CountryCode: "1", PhoneNumber: phone})
	must(t, err)
	return u.ID
}

// makeDatabase starts payoutd on a new database db with key (nil: the generated key file), seals
// with each of seal, and closes it.
func makeDatabase(t *testing.T, db string, key []byte, seal ...func(*testing.T, sealing)) {
	t.Helper()
	clock := testclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	srv, err := payoutd.New(context.Background(), payoutd.Config{DB: db, EncryptionKey: key, Clock: clock}, nil)
	must(t, err)
	defer srv.Close()
	creds, err := srv.CreateApp(context.Background(), "Sealed")
	must(t, err)
	if key == nil {
		b, err := os.ReadFile(payoutd.KeyFile(db))
		must(t, err)
		key, err = payoutd.ParseKey(string(b))
		must(t, err)
	}
	for _, s := range seal {
		s(t, sealing{srv: srv, app: creds.AppID, key: key, clock: clock})
	}
}

// start is payoutd.New on db with key, closed when t ends.
func start(t *testing.T, db string, key []byte) error {
	t.Helper()
	srv, err := payoutd.New(context.Background(), payoutd.Config{DB: db, EncryptionKey: key}, nil)
	if err == nil {
		srv.Close()
	}
	return err
}

// A database started with another key than its own is refused, whether or not it seals anything
// yet, and saying what to set; the key it was made with still opens it afterwards.
func TestNewRefusesAnotherKey(t *testing.T) {
	all := make([]func(*testing.T, sealing), len(sealers))
	for i, s := range sealers {
		all[i] = s.seal
	}
	for _, tt := range []struct {
		name string
		seal []func(*testing.T, sealing)
	}{
		{"nothing sealed yet", nil},
		{"every kind sealed", all},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, db string) {
				makeDatabase(t, db, madeWithKey, tt.seal...)
				err := start(t, db, anotherKey)
				if !errors.Is(err, service.ErrWrongKey) {
					t.Fatalf("started with another key: %v, want ErrWrongKey", err)
				}
				if !strings.Contains(err.Error(), "--encryption-key") {
					t.Errorf("the refusal does not say what to set: %v", err)
				}
				if err := start(t, db, madeWithKey); err != nil {
					t.Errorf("the key the database was made with, after a refused start: %v", err)
				}
			})
		})
	}
}

// A SQLite database restored without its key file is refused, naming the file to restore, and
// no new key is generated beside it.
func TestNewRefusesARestoreWithoutItsKeyFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "disburse.db")
	makeDatabase(t, db, nil, sealers[0].seal)
	must(t, os.Remove(payoutd.KeyFile(db))) // the restore brought the database alone

	err := start(t, db, nil)
	if err == nil {
		t.Fatal("started without the database's key file")
	}
	for _, want := range []string{payoutd.KeyFile(db), "--encryption-key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
	if _, err := os.Stat(payoutd.KeyFile(db)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a key file was made beside the restored database (stat: %v)", err)
	}
}

// A database from before check values (sealed values, no check value) gets one recorded from
// the first key that opens its sealed values, of whichever kind, and never from one that does
// not. The check value holds neither the key nor its plain hash.
func TestNewRecordsTheCheckValueOfAnUpgradeOnlyFromItsKey(t *testing.T) {
	for _, s := range sealers {
		t.Run(s.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, db string) {
				makeDatabase(t, db, madeWithKey, s.seal)
				srv, err := payoutd.New(context.Background(), payoutd.Config{DB: db, EncryptionKey: madeWithKey}, nil)
				must(t, err)
				sqlDB := srv.Store().DB()
				must(t, sqlDB.InTx(context.Background(), func(tx *sql.Tx) error {
					_, err := tx.Exec(`DELETE FROM key_check`) // as a database from before check values
					return err
				}))
				srv.Close()

				if err := start(t, db, anotherKey); !errors.Is(err, service.ErrWrongKey) {
					t.Fatalf("an upgrade started with a key that does not open its %s: %v, want ErrWrongKey", s.name, err)
				}
				if err := start(t, db, madeWithKey); err != nil {
					t.Fatalf("an upgrade started with its key: %v", err)
				}
				if err := start(t, db, anotherKey); !errors.Is(err, service.ErrWrongKey) {
					t.Fatalf("another key after the check value was recorded: %v, want ErrWrongKey", err)
				}

				srv, err = payoutd.New(context.Background(), payoutd.Config{DB: db, EncryptionKey: madeWithKey}, nil)
				must(t, err)
				defer srv.Close()
				var check []byte
				must(t, srv.Store().DB().QueryRow(`SELECT sealed FROM key_check`).Scan(&check))
				hash := sha256.Sum256(madeWithKey)
				if bytes.Contains(check, madeWithKey) || bytes.Contains(check, hash[:]) {
					t.Errorf("the check value %x holds the key or its hash", check)
				}
			})
		})
	}
}
