// Package servicetest starts the real Payout Service in-process for tests: the real store (SQLite
// in t.TempDir(), or PostgreSQL through pgtest), the real service and the real HTTP app,
// listening on 127.0.0.1 over real HTTP.
//
//	env := servicetest.Start(t)
//	resp := env.Do(t, "POST", "/v2/users", map[string]any{...})
//
// When the test ends, Start's cleanup checks the ledger of every app (it must balance) and fails
// the test if any request was answered with a 5xx status: bad input must never cause one. A
// package that uses WithPostgres calls pgtest.Main from its TestMain.
package servicetest

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/dbtemplate"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

// Env is a running Payout Service and the credentials of its first app.
type Env struct {
	// URL is the API's base: http://127.0.0.1:PORT/api, to which /v2/... paths are appended.
	URL string
	// Origin is http://127.0.0.1:PORT, where the hosted pages are.
	Origin string

	AppID    string
	ClientID string
	APIKey   string

	Server  *payoutd.Server
	Service *service.Service
	Store   *store.Store
	// Clock is the service's clock: the wall clock until a test sets or advances it.
	Clock *testclock.Clock
	// Inbox holds every message the service sent, kept by its sandbox notifier.
	Inbox *Inbox
	// HTTP is a client for the server, with room for many concurrent connections.
	HTTP *http.Client

	logs *logRecorder
}

// Option changes how Start starts the service.
type Option func(*options)

type options struct {
	dsn      string
	postgres bool
	clock    *testclock.Clock
	config   []func(*payoutd.Config)
}

// WithPostgres runs the service on a fresh PostgreSQL database from pgtest.
func WithPostgres() Option { return func(o *options) { o.postgres = true } }

// WithDSN runs the service on the given database (a SQLite path or a postgres:// URL).
func WithDSN(dsn string) Option { return func(o *options) { o.dsn = dsn } }

// WithClock gives the service c as its clock, for a test that starts it frozen or shares it.
func WithClock(c *testclock.Clock) Option { return func(o *options) { o.clock = c } }

// WithConfig changes the payoutd configuration before the server is built.
func WithConfig(fn func(*payoutd.Config)) Option {
	return func(o *options) { o.config = append(o.config, fn) }
}

// storeTemplate is the service's schema on SQLite, migrated once per test binary.
var storeTemplate = dbtemplate.New(func(ctx context.Context, path string) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	return st.Close()
})

// Start starts the Payout Service with one app and returns its environment. Everything stops
// when t ends.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	dir := t.TempDir()
	switch {
	case o.dsn != "":
	case o.postgres:
		o.dsn = pgtest.DSN(t)
	default:
		o.dsn = filepath.Join(dir, "disburse.db")
		storeTemplate.Write(t, o.dsn)
	}
	if o.clock == nil {
		o.clock = &testclock.Clock{}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("servicetest: listen: %v", err)
	}
	origin := "http://" + ln.Addr().String()
	env := &Env{
		URL:    origin + "/api",
		Origin: origin,
		Clock:  o.clock,
		logs:   newLogRecorder(),
		HTTP: &http.Client{
			Timeout:   time.Minute,
			Transport: &http.Transport{MaxIdleConnsPerHost: 64, Proxy: nil},
		},
	}
	cfg := payoutd.Config{
		Addr:          ln.Addr().String(),
		DB:            o.dsn,
		PublicURL:     origin,
		EncryptionKey: bytes.Repeat([]byte{7}, payoutd.KeySize),
		Clock:         o.clock,
	}
	for _, fn := range o.config {
		fn(&cfg)
	}
	ctx := context.Background()
	srv, err := payoutd.New(ctx, cfg, slog.New(env.logs))
	if err != nil {
		ln.Close()
		t.Fatalf("servicetest: start: %v", err)
	}
	env.Server, env.Service, env.Store = srv, srv.Service(), srv.Store()
	env.Inbox = &Inbox{svc: env.Service, t: t}

	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, ln) }()
	t.Cleanup(func() {
		env.HTTP.CloseIdleConnections()
		stop()
		if err := <-served; err != nil {
			t.Errorf("servicetest: serve: %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("servicetest: close: %v", err)
		}
		env.logs.check(t)
	})

	creds, err := srv.CreateApp(ctx, "Test app")
	if err != nil {
		t.Fatalf("servicetest: create app: %v", err)
	}
	env.AppID, env.ClientID, env.APIKey = creds.AppID, creds.ClientID, creds.APIKey
	// Registered last so that it runs first, while the store is open.
	t.Cleanup(func() { env.CheckLedger(t) })
	return env
}

// Credentials are those of the first app.
func (e *Env) Credentials() payouts.Credentials {
	return payouts.Credentials{AppID: e.AppID, Name: "Test app", ClientID: e.ClientID, APIKey: e.APIKey}
}

// CreateApp makes another app, for tests of what one app may see of another's.
func (e *Env) CreateApp(t testing.TB, name string) payouts.Credentials {
	t.Helper()
	creds, err := e.Server.CreateApp(context.Background(), name)
	if err != nil {
		t.Fatalf("servicetest: create app %q: %v", name, err)
	}
	return creds
}

// CheckLedger fails t unless the ledger of every app and organization holds its invariants.
func (e *Env) CheckLedger(t testing.TB) {
	t.Helper()
	report, err := e.Service.CheckAllLedgers(context.Background())
	if err != nil {
		t.Errorf("servicetest: check the ledgers: %v", err)
	}
	for _, v := range report.Violations {
		t.Errorf("servicetest: %v", &v)
	}
}

// Inbox reads the messages the service's sandbox notifier kept (verification tokens, payout
// links), as the sandbox inbox page shows them. It stops the test when the store fails, so call
// it from the test's goroutine.
type Inbox struct {
	svc *service.Service
	t   testing.TB
}

// Messages returns the messages sent so far to every app, oldest first (at most 500).
func (in *Inbox) Messages() []service.MessageRecord {
	in.t.Helper()
	msgs, err := in.svc.Inbox(context.Background(), "", 500)
	if err != nil {
		in.t.Fatalf("servicetest: inbox: %v", err)
	}
	slices.Reverse(msgs)
	return msgs
}

// Last returns the newest message sent to to (+CC NUMBER or an email address), or false.
func (in *Inbox) Last(to string) (service.MessageRecord, bool) {
	in.t.Helper()
	msgs := in.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].To == to {
			return msgs[i], true
		}
	}
	return service.MessageRecord{}, false
}

// TokenPattern finds the six-digit verification code in a message.
var TokenPattern = regexp.MustCompile(`\b\d{6}\b`)

// Token returns the verification code in the newest message to to (+CC NUMBER or an email
// address), failing t when there is no such message or no code in it.
func (in *Inbox) Token(t testing.TB, to string) string {
	t.Helper()
	m, ok := in.Last(to)
	if !ok {
		t.Fatalf("servicetest: no message to %s in the sandbox inbox", to)
	}
	tok := TokenPattern.FindString(m.Body)
	if tok == "" {
		t.Fatalf("servicetest: no token in the message to %s: %q", to, m.Body)
	}
	return tok
}

// ProveEmailPayee walks the hosted flow flowID of a link that names only an email, as a payee
// at client address addr does: the code goes to email, and once it is entered a payee nobody
// knows gives req's names and phone. It returns the payee's user id.
func (e *Env) ProveEmailPayee(t testing.TB, flowID, addr, email string, req payouts.CreateUserRequest) string {
	t.Helper()
	ctx := context.Background()
	sess, err := e.Service.IdentifyPayee(ctx, flowID, addr, payouts.CreateUserRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if sess, err = e.Service.VerifyPayee(ctx, sess, e.Inbox.Token(t, email)); err != nil {
		t.Fatal(err)
	}
	if sess.UserID == "" {
		if sess, err = e.Service.GivePayeeDetails(ctx, addr, sess, req); err != nil {
			t.Fatal(err)
		}
	}
	return sess.UserID
}
