package service_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sandbox"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// env is a service on a real SQLite store with an app, a funded app wallet and a user.
type env struct {
	ctx    context.Context
	dsn    string
	clock  *testclock.Clock
	svc    *service.Service
	st     *store.Store
	stores []*store.Store
	app    string
	user   *payouts.User
	cfg    service.Config
	// wrapStore, when set, wraps the store each (re)started service runs on.
	wrapStore func(service.Store) service.Store
	// notifier, when set, sends the messages in place of the sandbox inbox.
	notifier service.Notifier
	// tampered is set by a test that broke the ledger on purpose: its end checks nothing.
	tampered bool
}

func newEnv(t testing.TB, deposit int64) *env {
	t.Helper()
	return newEnvOn(t, filepath.Join(t.TempDir(), "test.db"), nil, deposit)
}

// newEnvOn is newEnv on the database dsn (a SQLite path or a postgres:// URL), paying out
// through rails (nil for the sandbox's).
func newEnvOn(t testing.TB, dsn string, rails map[payouts.Platform]service.Rail, deposit int64) *env {
	t.Helper()
	e := &env{ctx: context.Background(), dsn: dsn,
		clock: testclock.New(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)),
		cfg:   service.Config{EncryptionKey: make([]byte, 32), PublicURL: "http://pay.test", Rails: rails}}
	t.Cleanup(func() {
		if !e.tampered {
			e.checkLedger(t)
		}
		for _, st := range e.stores {
			st.Close()
		}
	})
	e.open(t)
	cred, err := e.svc.CreateApp(e.ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	e.app = cred.AppID
	e.user = e.newUser(t, "ada@example.com", "4155550100")
	if deposit > 0 {
		if _, err := e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: deposit}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// open (re)starts the service on the env's database: a new process, as far as the service can
// tell.
func (e *env) open(t testing.TB) {
	t.Helper()
	st, err := store.Open(e.ctx, e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	// As payoutd opens it: its ledger chained under the service's key.
	if err := st.KeyLedger(e.ctx, e.cfg.EncryptionKey); err != nil {
		t.Fatal(err)
	}
	e.stores = append(e.stores, st)
	var on service.Store = st
	if e.wrapStore != nil {
		on = e.wrapStore(st)
	}
	var notifier service.Notifier = sandbox.Inbox{Store: st, Key: e.cfg.EncryptionKey, Clock: e.clock}
	if e.notifier != nil {
		notifier = e.notifier
	}
	svc, err := service.New(on, sandbox.Wire(e.cfg, e.clock, 0, 0), e.clock, notifier, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.st, e.svc = st, svc
}

func (e *env) newUser(t testing.TB, email, phone string) *payouts.User {
	t.Helper()
	u, err := e.svc.CreateUser(e.ctx, e.app, payouts.CreateUserRequest{FirstName: "Ada", LastName: "Lovelace",
		Email: email, CountryCode: "1", PhoneNumber: phone})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (e *env) checkLedger(t testing.TB) {
	t.Helper()
	if err := e.svc.CheckLedger(e.ctx, e.app); err != nil {
		t.Fatal(err)
	}
}

func (e *env) addMethod(t testing.TB, userID string, req payouts.AddPayoutMethodRequest) *payouts.PayoutMethod {
	t.Helper()
	m, err := e.svc.AddPayoutMethod(e.ctx, e.app, userID, req)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *env) wallets(t testing.TB, userID string) (app, user payouts.Wallet) {
	t.Helper()
	a, err := e.svc.GetApp(e.ctx, e.app, e.app)
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.svc.GetUser(e.ctx, e.app, userID)
	if err != nil {
		t.Fatal(err)
	}
	return a.Wallet, u.Wallet
}

func (e *env) settle(t testing.TB, after time.Duration) int {
	t.Helper()
	e.clock.Advance(after)
	n, err := e.svc.SettleDue(e.ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	e.checkLedger(t)
	return n
}

// asJSON is v as the API would write it.
func asJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (e *env) transfer(t testing.TB, id string) *payouts.Transfer {
	t.Helper()
	tr, err := e.svc.GetTransfer(e.ctx, e.app, id)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if payouts.ErrorCode(err) != code {
		t.Fatalf("error = %v, want code %q", err, code)
	}
}

// payee is a user with a PayPal method at their email.
func (e *env) payee(t testing.TB, first, last, email, phone string) *payouts.User {
	t.Helper()
	u, err := e.svc.CreateUser(e.ctx, e.app, payouts.CreateUserRequest{FirstName: first, LastName: last,
		Email: email, CountryCode: "1", PhoneNumber: phone})
	if err != nil {
		t.Fatal(err)
	}
	e.addMethod(t, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: email})
	return u
}

// fundedPayout is a funded PayPal payout to a user, left for its rail to settle.
type fundedPayout struct {
	amount    int64
	feeParty  payouts.FeeParty
	taxExempt bool
}

func (e *env) payOut(t testing.TB, userID string, p fundedPayout) *payouts.Transfer {
	t.Helper()
	tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: userID, Amount: p.amount,
		Platform: payouts.PlatformPayPal, Fund: true, PayoutFeeParty: p.feeParty, TaxExempt: p.taxExempt})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
