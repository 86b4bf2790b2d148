package service_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/internal/store"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/sqlrows"
	"github.com/disburse/disburse/payouts"
)

// planTables are the tables a money request's plan writes, compared row for row.
var planTables = []string{"transfers", "postings", "ledger_accounts", "events", "webhook_deliveries", "tax_years", "ledger_chain"}

// TestPlanIsTheWholeEffect holds each money request that decides a plan to it: run on a
// database, the request's transaction writes the plan's tables through Apply alone (the store's
// write hook), and applying the plans it made, alone, to a copy of the database taken before it
// leaves the same rows of those tables. The one write outside Apply a request may make is an
// account made on first use (the app's clearing account of a rail), before the plan that posts
// to it (WRITE_PATH.md).
func TestPlanIsTheWholeEffect(t *testing.T) {
	var link, payout, org, orgApp string // the link, payout, or organization and its app a case's before made
	tests := []struct {
		name    string
		applies int      // Apply calls the request's transaction makes
		outside []string // writes outside Apply it may make
		before  func(t *testing.T, e *env, user string)
		request func(t *testing.T, e *env, user string) error
	}{
		{name: "balance transfer to the user", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: -300, IdempotencyKey: "7c9e6679-7425-40de-944b-e07fc1f90ae7"})
			return err
		}},
		{name: "balance transfer from the user", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: 50})
			return err
		}},
		{name: "balance transfer past the 1099 threshold", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: -1500})
			return err
		}},
		{name: "refused balance transfer", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: user, Amount: 1_000_000})
			if pe := (*payouts.Error)(nil); !errors.As(err, &pe) || pe.Code != payouts.EInsufficientFunds {
				return fmt.Errorf("an overdraft answered %v", err)
			}
			return nil
		}},
		{name: "transfer batch, an item refused", applies: 3, // each item's plan, then the batch's events
			before: func(t *testing.T, e *env, user string) {
				_, err := e.svc.CreateTransferBatch(e.ctx, e.app, payouts.CreateTransferBatchRequest{Items: []payouts.TransferBatchItem{
					{UserID: user, Amount: -100}, {UserID: user, Amount: 1_000_000, AllowDebit: true}}})
				if err != nil {
					t.Fatal(err)
				}
			},
			request: func(t *testing.T, e *env, user string) error {
				_, err := e.svc.ProcessBatches(e.ctx, 1)
				return err
			}},
		{name: "payout", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: user, Amount: 80, Platform: "paypal", IdempotencyKey: "8d0f7780-8536-41ef-a55c-f18a02001bf8"})
			return err
		}},
		{name: "first payout on its rail", applies: 1, outside: []string{"ledger_accounts"}, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: user, Amount: 80, Platform: "paypal"})
			return err
		}},
		{name: "funded payout", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: user, Amount: 400, Platform: "paypal", Fund: true,
				PayoutFeeParty: payouts.FeePartyUser})
			return err
		}},
		{name: "payout link issued", applies: 1, before: issueLink(&link), request: func(t *testing.T, e *env, user string) error {
			_, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 700, UserID: user,
				IdempotencyKey: "0f8fad5b-d9cb-469f-a165-70867728950e"})
			return err
		}},
		{name: "refused payout link", applies: 1, before: issueLink(&link), request: func(t *testing.T, e *env, user string) error {
			_, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 1_000_000, UserID: user})
			if pe := (*payouts.Error)(nil); !errors.As(err, &pe) || pe.Code != payouts.EInsufficientFunds {
				return fmt.Errorf("an overdraft answered %v", err)
			}
			return nil
		}},
		{name: "payout link claimed past the 1099 threshold", applies: 1, before: issueLink(&link), request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.ClaimPayoutLink(e.ctx, link, user)
			return err
		}},
		{name: "payout link canceled", applies: 1, before: issueLink(&link), request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CancelPayoutLink(e.ctx, e.app, link)
			return err
		}},
		{name: "payout settled by its rail", applies: 1, before: makePayout(&payout, 80, false, false),
			request: reportOutcome(&payout, service.RailOutcome{Settled: true})},
		{name: "funded payout failed by its rail", applies: 1, before: makePayout(&payout, 400, true, false),
			request: reportOutcome(&payout, service.RailOutcome{Failed: true, Reason: "account closed"})},
		{name: "payout returned after it settled", applies: 1, before: makePayout(&payout, 80, false, true),
			request: reportOutcome(&payout, service.RailOutcome{Returned: true, Reason: "account closed"})},
		{name: "flagged payout rejected in review", applies: 1, before: makePayout(&payout, 1313, true, false),
			request: review(&payout, payouts.ReviewReject)},
		{name: "flagged payout released in review", applies: 1, before: makePayout(&payout, 1313, true, false),
			request: review(&payout, payouts.ReviewRelease)},
		{name: "deposit", applies: 1, request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.Deposit(e.ctx, e.app, e.app, payouts.DepositRequest{Amount: 900, IdempotencyKey: "1b4e28ba-2fa1-41d2-883f-0016d3cca427"})
			return err
		}},
		{name: "app withdrawal", applies: 1, before: withdraw(100), request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.AppWithdraw(e.ctx, e.app, e.app, payouts.WithdrawRequest{Amount: 300})
			return err
		}},
		{name: "organization transfer", applies: 1, before: organizationApp(&org, &orgApp), request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreateOrganizationTransfer(e.ctx, org, payouts.CreateOrganizationTransferRequest{Amount: 250, APIAppID: orgApp})
			return err
		}},
		{name: "refused organization transfer", applies: 1, before: organizationApp(&org, &orgApp), request: func(t *testing.T, e *env, user string) error {
			_, err := e.svc.CreateOrganizationTransfer(e.ctx, org, payouts.CreateOrganizationTransferRequest{Amount: -1_000_000, APIAppID: orgApp})
			if pe := (*payouts.Error)(nil); !errors.As(err, &pe) || pe.Code != payouts.EInsufficientFunds {
				return fmt.Errorf("an overdraft answered %v", err)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.EachEngine(t, func(t *testing.T, dsn string) {
				e := newEnvOn(t, dsn, nil, 10_000)
				e.cfg.Thresholds1099 = map[int]payouts.Money{2026: 1000}
				e.cfg.Fees = map[payouts.Platform]payouts.Money{payouts.PlatformPayPal: 25}
				e.open(t)
				// A payee paid before, so that the request finds every account it posts to made.
				payee := e.payee(t, "Grace", "Hopper", "grace@example.com", "4155550101")
				e.addMethod(t, payee.ID, payouts.AddPayoutMethodRequest{Platform: "paypal", Email: "grace@example.com"})
				if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: payee.ID, Amount: -200, TaxExempt: true}); err != nil {
					t.Fatal(err)
				}
				if tt.outside == nil {
					makeRailAccounts(t, e.ctx, e.st, e.app)
				}
				if tt.before != nil {
					tt.before(t, e, payee.ID)
				}
				before := copyDatabase(t, e)
				rec := &planRecorder{}
				e.wrapStore = rec.wrap
				e.open(t)
				e.st.HookWrites(rec.hook)
				rec.mu.Lock()
				rec.armed = true
				rec.mu.Unlock()
				if err := tt.request(t, e, payee.ID); err != nil {
					t.Fatal(err)
				}
				if len(rec.plans) != tt.applies {
					t.Fatalf("the request applied %d plans, want %d", len(rec.plans), tt.applies)
				}
				if !slices.Equal(rec.outside, tt.outside) {
					t.Errorf("the request wrote %v outside Apply, want %v", rec.outside, tt.outside)
				}
				ran := tableRows(t, e.dsn)

				alone := openStore(t, before, e.cfg.EncryptionKey)
				if tt.outside != nil {
					makeRailAccounts(t, e.ctx, alone, e.app) // before the plan, as the request made them
				}
				for _, p := range rec.plans {
					err := alone.InTx(e.ctx, func(q service.Queries) error { return q.Apply(e.ctx, p) })
					if err != nil && !errors.Is(err, service.ErrOverdraft) {
						t.Fatal(err)
					}
				}
				alone.Close()
				applied := tableRows(t, before)
				for _, table := range planTables {
					if !slices.Equal(ran[table], applied[table]) {
						t.Errorf("%s after the request:\n%s\nafter its plan alone:\n%s", table,
							strings.Join(ran[table], "\n"), strings.Join(applied[table], "\n"))
					}
				}
			})
		})
	}
}

// issueLink issues a payout link of 1,500 cents to the user, counted towards their 1099 total
// when claimed, and keeps its id in id.
func issueLink(id *string) func(t *testing.T, e *env, user string) {
	return func(t *testing.T, e *env, user string) {
		l, _, err := e.svc.CreatePayoutLink(e.ctx, e.app, payouts.CreatePayoutLinkRequest{Amount: 1500, UserID: user})
		if err != nil {
			t.Fatal(err)
		}
		*id = l.ID
	}
}

// makePayout makes a PayPal payout of amount cents (funded from the app's wallet, or not; 1313
// is flagged for review), settled by its rail when settled, and keeps its id in id.
func makePayout(id *string, amount int64, fund, settled bool) func(t *testing.T, e *env, user string) {
	return func(t *testing.T, e *env, user string) {
		tr, err := e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: user, Amount: amount, Platform: "paypal", Fund: fund})
		if err != nil {
			t.Fatal(err)
		}
		*id = tr.ID
		if settled {
			if err := reportOutcome(id, service.RailOutcome{Settled: true})(t, e, user); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// reportOutcome is the rail's notification of the payout id's outcome.
func reportOutcome(id *string, out service.RailOutcome) func(t *testing.T, e *env, user string) error {
	return func(t *testing.T, e *env, user string) error {
		return e.svc.ReportRailOutcome(e.ctx, payouts.PlatformPayPal, service.RailReport{TransferID: *id,
			ExternalID: e.transfer(t, *id).ExternalData.ExternalID, Outcome: out})
	}
}

// review reviews the flagged payout id.
func review(id *string, action string) func(t *testing.T, e *env, user string) error {
	return func(t *testing.T, e *env, user string) error {
		_, err := e.svc.ReviewTransfer(e.ctx, e.app, *id, payouts.ReviewTransferRequest{Action: action})
		return err
	}
}

// withdraw saves the app's ACH account and withdraws amount cents to it, so that its ACH clearing
// account is made.
func withdraw(amount int64) func(t *testing.T, e *env, user string) {
	return func(t *testing.T, e *env, user string) {
		if _, err := e.svc.SetACHAccount(e.ctx, e.app, e.app, payouts.ACHAccountRequest{AccountNumber: "000123456789",
			RoutingNumber: "011000015", AccountType: "checking"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AppWithdraw(e.ctx, e.app, e.app, payouts.WithdrawRequest{Amount: amount}); err != nil {
			t.Fatal(err)
		}
	}
}

// organizationApp makes an organization and an app of it with 1,000 cents, which sends the
// organization 100, so that both ledgers' accounts for the other are made; it keeps their ids.
func organizationApp(org, app *string) func(t *testing.T, e *env, user string) {
	return func(t *testing.T, e *env, user string) {
		o, err := e.svc.CreateOrganization(e.ctx, "Group")
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.svc.CreateOrganizationApp(e.ctx, o.AppID, payouts.CreateAppRequest{Name: "Shop"})
		if err != nil {
			t.Fatal(err)
		}
		*org, *app = o.AppID, a.ID
		if _, err := e.svc.Deposit(e.ctx, a.ID, a.ID, payouts.DepositRequest{Amount: 1000}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.CreateOrganizationTransfer(e.ctx, o.AppID, payouts.CreateOrganizationTransferRequest{Amount: 100, APIAppID: a.ID}); err != nil {
			t.Fatal(err)
		}
	}
}

// makeRailAccounts makes the app's PayPal clearing account and its fees account, in the order
// a payout makes them on first use.
func makeRailAccounts(t *testing.T, ctx context.Context, st *store.Store, appID string) {
	t.Helper()
	for _, a := range []struct {
		kind ledger.Kind
		ref  string
	}{{ledger.Clearing, string(payouts.PlatformPayPal)}, {ledger.Fees, ""}} {
		if err := st.InTx(ctx, func(q service.Queries) error { _, err := q.EnsureAccount(ctx, appID, a.kind, a.ref); return err }); err != nil {
			t.Fatal(err)
		}
	}
}

// planRecorder wraps a service's store to keep the plans of its first write transaction once
// armed, and the writes that transaction made outside Apply; later transactions (a payout's
// submission) are refused, so that the database holds the request's transaction alone.
type planRecorder struct {
	mu      sync.Mutex
	armed   bool
	txs     int
	inFirst bool
	plans   []*service.Plan
	outside []string
}

var errAfterRequest = errors.New("test: the request's transaction is the only one")

func (r *planRecorder) wrap(st service.Store) service.Store { return recordingStore{st, r} }

// writes finds the table a statement writes.
var writes = regexp.MustCompile(`^\s*(?:INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)`)

// hook hears the statements of the store's jobs (store.HookWrites), and keeps the tables of
// planTables the request's transaction wrote outside Apply.
func (r *planRecorder) hook(statement string, inApply bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := writes.FindStringSubmatch(statement)
	if r.inFirst && !inApply && m != nil && slices.Contains(planTables, m[1]) && !slices.Contains(r.outside, m[1]) {
		r.outside = append(r.outside, m[1])
	}
}

type recordingStore struct {
	service.Store
	r *planRecorder
}

func (s recordingStore) InTx(ctx context.Context, fn func(q service.Queries) error) error {
	return s.InTxWith(ctx, service.Intent{}, fn)
}

func (s recordingStore) InTxWith(ctx context.Context, intent service.Intent, fn func(q service.Queries) error) error {
	s.r.mu.Lock()
	if !s.r.armed {
		s.r.mu.Unlock()
		return s.Store.InTxWith(ctx, intent, fn)
	}
	s.r.txs++
	first := s.r.txs == 1
	s.r.mu.Unlock()
	if !first {
		return errAfterRequest
	}
	return s.Store.InTxWith(ctx, intent, func(q service.Queries) error {
		s.r.mu.Lock()
		s.r.inFirst, s.r.plans, s.r.outside = true, nil, nil // a retried transaction starts over
		s.r.mu.Unlock()
		defer func() { s.r.mu.Lock(); s.r.inFirst = false; s.r.mu.Unlock() }()
		return fn(recordingQueries{q, s.r})
	})
}

type recordingQueries struct {
	service.Queries
	r *planRecorder
}

func (q recordingQueries) Apply(ctx context.Context, p *service.Plan) error {
	q.r.mu.Lock()
	q.r.plans = append(q.r.plans, p)
	q.r.mu.Unlock()
	return q.Queries.Apply(ctx, p)
}

// copyDatabase copies e's database as it stands into a new one and returns its DSN: SQLite's
// VACUUM INTO, or a PostgreSQL database made from it as a template (its connections closed
// meanwhile, and the service opened again).
func copyDatabase(t *testing.T, e *env) string {
	t.Helper()
	if !sqldb.IsPostgresDSN(e.dsn) {
		to := filepath.Join(t.TempDir(), "copy.db")
		db := openDB(t, e.dsn)
		if _, err := db.ExecContext(e.ctx, `VACUUM INTO ?`, to); err != nil {
			t.Fatal(err)
		}
		return to
	}
	for _, st := range e.stores {
		st.Close()
	}
	e.stores = nil
	u, err := url.Parse(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	from, name := strings.TrimPrefix(u.Path, "/"), strings.TrimPrefix(u.Path, "/")+"_copy"
	u.Path = "/postgres"
	admin := openDB(t, u.String())
	if _, err := admin.ExecContext(e.ctx, `CREATE DATABASE "`+name+`" TEMPLATE "`+from+`"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`) })
	e.open(t)
	u.Path = "/" + name
	return u.String()
}

func openDB(t *testing.T, dsn string) *sqldb.DB {
	t.Helper()
	db, err := sqldb.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openStore(t *testing.T, dsn string, key []byte) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.KeyLedger(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	return st
}

// tableRows reads every row of the plan's tables, each as text, sorted.
func tableRows(t *testing.T, dsn string) map[string][]string {
	t.Helper()
	db := openDB(t, dsn)
	out := map[string][]string{}
	for _, table := range planTables {
		rows, err := db.QueryContext(context.Background(), `SELECT * FROM `+table)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := sqlrows.Values(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, vals := range lines {
			out[table] = append(out[table], fmt.Sprint(vals))
		}
		slices.Sort(out[table])
	}
	return out
}
