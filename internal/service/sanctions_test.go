package service_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/sanctions"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/testutil/pgtest"
	"github.com/disburse/disburse/internal/testutil/sanctionstest"
	"github.com/disburse/disburse/payouts"
)

// SDN rows in OFAC's legacy sdn.csv layout (the parties are made up).
var (
	sdnRashid = sanctionstest.Individual(7001, "AL-RASHID, Ahmad Yusuf", "SDGT] [IRGC", "DOB 12 Mar 1970; nationality Syria.")
	sdnTheo   = sanctionstest.Individual(7002, "OKONKWO-BELLAMY, Theodora", "SDNTK", "DOB circa 1980.")
	sdnCuba   = `36,"AEROCARIBBEAN AIRLINES",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ` + "\n" // an entity
)

// loadSDN writes sdn.csv (and alt.csv) in a new folder, loads it as payoutd sanctions load does
// and returns what the load did.
func (e *env) loadSDN(t *testing.T, sdn, alt string) *service.SanctionsLoad {
	t.Helper()
	l, dir := sanctionstest.Load(t, map[string]string{"sdn.csv": sdn, "alt.csv": alt})
	load, err := e.svc.LoadSanctions(e.ctx, l, dir)
	if err != nil {
		t.Fatal(err)
	}
	return load
}

// payee is a user of the env's app with a PayPal method.
func (e *env) screening(t *testing.T, userID string) *payouts.Screening {
	t.Helper()
	s, err := e.svc.GetScreening(e.ctx, e.app, userID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A payee matching the SDN list is held before any money moves; an operator's release is
// recorded with who and why, and not asked again for the same entry until the list changes.
func TestSanctionsHoldAndRelease(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 1_000_00)
		held := e.payee(t, "Ahmed Yousuf", "Al Rashid", "ahmed@example.com", "4155550101")
		clean := e.payee(t, "Grace", "Hopper", "grace@example.com", "4155550102")
		load := e.loadSDN(t, sdnCuba+sdnRashid, `7001,101,"aka","ABU YUSUF AL-HALABI",-0- `+"\n")
		if load.Unchanged || load.Entries != 2 || load.Payees != 3 || load.Held != 1 {
			t.Fatalf("first load: %+v", load)
		}

		tr := e.payOut(t, held.ID, fundedPayout{amount: 100_00})
		if tr.Status != payouts.TransferFlagged {
			t.Fatalf("the listed payee's payout is %s", tr.Status)
		}
		if ok := e.payOut(t, clean.ID, fundedPayout{amount: 100_00}); ok.Status != payouts.TransferPending {
			t.Fatalf("a clean payee's payout is %s", ok.Status)
		}
		e.settle(t, time.Hour)
		if got := e.transfer(t, tr.ID).Status; got != payouts.TransferFlagged {
			t.Fatalf("the held payout settled to %s", got)
		}
		s := e.screening(t, held.ID)
		if s.ListVersion == "" || len(s.Hits) != 1 {
			t.Fatalf("screening: %+v", s)
		}
		h := s.Hits[0]
		if h.EntryUID != "SDN-7001" || h.List != sanctions.ListSDN || h.EntryName != "AL-RASHID, Ahmad Yusuf" ||
			len(h.Programs) != 2 || h.Programs[0] != "SDGT" || h.Score < sanctions.DefaultThreshold || h.Released {
			t.Fatalf("hit: %+v", h)
		}
		if s := e.screening(t, clean.ID); len(s.Hits) != 0 {
			t.Fatalf("the clean payee has hits: %+v", s.Hits)
		}

		for _, tc := range []struct {
			name string
			req  payouts.ReviewTransferRequest
		}{
			{"no reviewer", payouts.ReviewTransferRequest{Action: payouts.ReviewRelease, Reason: "not the same person"}},
			{"no reason", payouts.ReviewTransferRequest{Action: payouts.ReviewRelease, Reviewer: "ops@acme.test"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.svc.ReviewTransfer(e.ctx, e.app, tr.ID, tc.req)
				wantCode(t, err, payouts.EInvalidInput)
				if got := e.transfer(t, tr.ID).Status; got != payouts.TransferFlagged {
					t.Fatalf("released without an audit: %s", got)
				}
			})
		}
		got, err := e.svc.ReviewTransfer(e.ctx, e.app, tr.ID, payouts.ReviewTransferRequest{Action: payouts.ReviewRelease,
			Reviewer: "ops@acme.test", Reason: "born 1988 in Ohio: not the listed person"})
		if err != nil || got.Status != payouts.TransferPending {
			t.Fatalf("release: %v %v", got, err)
		}
		h = e.screening(t, held.ID).Hits[0]
		if !h.Released || h.ReleasedBy != "ops@acme.test" || h.ReleaseReason != "born 1988 in Ohio: not the listed person" ||
			h.ReleasedAt == nil || !h.ReleasedAt.Equal(e.clock.Now()) {
			t.Fatalf("the release's audit: %+v", h)
		}
		e.settle(t, time.Hour)
		if got := e.transfer(t, tr.ID).Status; got != payouts.TransferCompleted {
			t.Fatalf("the released payout is %s", got)
		}

		if again := e.payOut(t, held.ID, fundedPayout{amount: 10_00}); again.Status != payouts.TransferPending {
			t.Fatalf("asked again for the released entry: %s", again.Status)
		}
		if same := e.loadSDN(t, sdnCuba+sdnRashid, `7001,101,"aka","ABU YUSUF AL-HALABI",-0- `+"\n"); !same.Unchanged || same.ListID != load.ListID {
			t.Fatalf("the same files loaded again: %+v", same)
		}
		if again := e.payOut(t, held.ID, fundedPayout{amount: 10_00}); again.Status != payouts.TransferPending {
			t.Fatalf("asked again after the same list: %s", again.Status)
		}
		changed := e.loadSDN(t, sdnCuba+sdnRashid+sdnTheo, "")
		if changed.Unchanged || changed.Held != 1 {
			t.Fatalf("a new list: %+v", changed)
		}
		if again := e.payOut(t, held.ID, fundedPayout{amount: 10_00}); again.Status != payouts.TransferFlagged {
			t.Fatalf("not asked again after the list changed: %s", again.Status)
		}
		if s := e.screening(t, held.ID); len(s.Hits) != 1 || s.Hits[0].Released {
			t.Fatalf("the new list's screening: %+v", s)
		}
	})
}

// Loading a new list screens every payee again: one clean before is held after, on every path
// that pays out (a payout, a payout link paid at once, a hosted flow's withdrawal).
func TestSanctionsReloadHoldsAPayeeCleanBefore(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 1_000_00)
		theo := e.payee(t, "Teodora", "Okonkwo Belamy", "theo@example.com", "4155550103")
		if load := e.loadSDN(t, sdnCuba+sdnRashid, ""); load.Held != 0 {
			t.Fatalf("first load: %+v", load)
		}
		if tr := e.payOut(t, theo.ID, fundedPayout{amount: 100_00}); tr.Status != payouts.TransferPending {
			t.Fatalf("before the reload: %s", tr.Status)
		}
		if _, err := e.svc.CreateTransfer(e.ctx, e.app, payouts.CreateTransferRequest{UserID: theo.ID, Amount: -50_00}); err != nil {
			t.Fatal(err)
		}
		load := e.loadSDN(t, sdnCuba+sdnRashid+sdnTheo, "")
		if load.Held != 1 || load.Payees != 2 {
			t.Fatalf("the reload: %+v", load)
		}
		if s := e.screening(t, theo.ID); len(s.Hits) != 1 || s.Hits[0].EntryUID != "SDN-7002" || s.Hits[0].List != "SDN" {
			t.Fatalf("screening after the reload: %+v", s)
		}
		for _, tc := range []struct {
			name string
			pay  func() (*payouts.Transfer, error)
		}{
			{"payout", func() (*payouts.Transfer, error) {
				return e.svc.CreatePayout(e.ctx, e.app, payouts.CreatePayoutRequest{UserID: theo.ID, Amount: 100_00, Platform: "paypal", Fund: true})
			}},
			{"withdrawal", func() (*payouts.Transfer, error) {
				return e.svc.Withdraw(e.ctx, e.app, theo.ID, "", 0, "", "")
			}},
			{"payout link paid at once", func() (*payouts.Transfer, error) {
				l, err := e.svc.SendPayout(e.ctx, e.app, payouts.SendPayoutRequest{UserID: theo.ID, Amount: 20_00})
				if err != nil {
					return nil, err
				}
				if l.TransferID == nil {
					t.Fatalf("the link did not pay at once: %+v", l)
				}
				return e.svc.GetTransfer(e.ctx, e.app, *l.TransferID)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tr, err := tc.pay()
				if err != nil {
					t.Fatal(err)
				}
				if tr.Status != payouts.TransferFlagged {
					t.Fatalf("after the reload: %s", tr.Status)
				}
			})
		}
	})
}

// A name under the threshold alone is held when the date of birth on the payee's tax form
// agrees with the entry's.
func TestSanctionsBirthDateFromTheTaxForm(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 1_000_00)
		u := e.payee(t, "Ahmed", "Yusuf", "ay@example.com", "4155550104")
		e.loadSDN(t, sdnRashid, "")
		if tr := e.payOut(t, u.ID, fundedPayout{amount: 10_00}); tr.Status != payouts.TransferPending {
			t.Fatalf("on the name alone: %s", tr.Status)
		}
		form := payouts.ComplianceRequest{W8BEN: &payouts.W8BEN{Name: "Ahmed Yusuf", CitizenshipCountry: "JO",
			DateOfBirth: "1970-03-12", TIN: "X1", Address: payouts.Address{Line1: "1 Road", City: "Amman",
				State: "Amman", Country: "JO", Postcode: "11118"}, Signature: payouts.Signature{Consent: true, Name: "Ahmed Yusuf", Email: "ay@example.com"}}}
		if err := e.svc.SubmitCompliance(e.ctx, e.app, u.ID, form); err != nil {
			t.Fatal(err)
		}
		if tr := e.payOut(t, u.ID, fundedPayout{amount: 10_00}); tr.Status != payouts.TransferFlagged {
			t.Fatalf("with the same birth date: %s", tr.Status)
		}
	})
}

// sanctionsReads counts the reads of the sanctions list loaded last, in and out of transactions.
type sanctionsReads struct {
	service.Store
	reads *atomic.Int64
}

func (s sanctionsReads) CurrentSanctionsList(ctx context.Context) (*service.SanctionsListRecord, error) {
	s.reads.Add(1)
	return s.Store.CurrentSanctionsList(ctx)
}

func (s sanctionsReads) InTx(ctx context.Context, fn func(q service.Queries) error) error {
	return s.InTxWith(ctx, service.Intent{}, fn)
}

func (s sanctionsReads) InTxWith(ctx context.Context, intent service.Intent, fn func(q service.Queries) error) error {
	return s.Store.InTxWith(ctx, intent, func(q service.Queries) error { return fn(sanctionsTxReads{q, s.reads}) })
}

type sanctionsTxReads struct {
	service.Queries
	reads *atomic.Int64
}

func (q sanctionsTxReads) CurrentSanctionsList(ctx context.Context) (*service.SanctionsListRecord, error) {
	q.reads.Add(1)
	return q.Queries.CurrentSanctionsList(ctx)
}

// With no list loaded a payout reads no list: that none is loaded is known in memory, asked
// again of the database at most once a minute, when a list another process loaded is noticed;
// a list this process loads is screened against at once.
func TestSanctionsNoListReadsNothing(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, dsn string) {
		e := newEnvOn(t, dsn, nil, 10_000_00)
		other := e.svc // another process on the same database
		var reads atomic.Int64
		e.wrapStore = func(st service.Store) service.Store { return sanctionsReads{Store: st, reads: &reads} }
		e.open(t)
		listed := e.payee(t, "Ahmed Yousuf", "Al Rashid", "ahmed@example.com", "4155550101")

		steps := []struct {
			name      string
			advance   time.Duration
			load      bool // the other process loads the list first
			payouts   int
			wantReads int64 // in all, after the step
			wantHeld  bool
		}{
			{"the first payout finds no list", 0, false, 1, 1, false},
			{"later ones read none", 30 * time.Second, false, 3, 1, false},
			{"a list loaded elsewhere is not read before the minute is up", 0, true, 1, 1, false},
			{"then it is read and holds the payee", 31 * time.Second, false, 1, 2, true},
		}
		for _, step := range steps {
			e.clock.Advance(step.advance)
			if step.load {
				l, dir := sanctionstest.Load(t, map[string]string{"sdn.csv": sdnRashid, "alt.csv": ""})
				if _, err := other.LoadSanctions(e.ctx, l, dir); err != nil {
					t.Fatal(err)
				}
			}
			for range step.payouts {
				tr := e.payOut(t, listed.ID, fundedPayout{amount: 1_00})
				if held := tr.Status == payouts.TransferFlagged; held != step.wantHeld {
					t.Fatalf("%s: payout %s, want held %v", step.name, tr.Status, step.wantHeld)
				}
			}
			if got := reads.Load(); got != step.wantReads {
				t.Fatalf("%s: %d reads of the list in all, want %d", step.name, got, step.wantReads)
			}
		}
		if loaded, err := e.svc.SanctionsLoaded(e.ctx); err != nil || !loaded {
			t.Errorf("SanctionsLoaded = %v, %v once a list is read", loaded, err)
		}
	})
}
