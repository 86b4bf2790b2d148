// Package sim is a seeded simulation of the Payout Service in process: a math/rand/v2 source
// picks operations on a stopped clock, the store fails chosen statements of transactions, and
// the service "crashes" between steps (a fresh Service over the same database). After every step
// the ledger must hold its invariants and no wallet may be negative; a request that failed must
// have written nothing.
//
//	go test ./internal/sim -run TestSimulation -seeds 1000   # many seeds
//	go test ./internal/sim -run TestSimulation -seed 42 -v   # one seed, to reproduce it
package sim

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/testutil/testclock"
	"github.com/disburse/disburse/payouts"
)

var (
	seedFlag  = flag.Uint64("seed", 0, "run only this seed of TestSimulation (0: run -seeds seeds)")
	seedsFlag = flag.Int("seeds", 5, "how many seeds TestSimulation runs, from 1")
)

// stepsPerSeed is how many operations one seed makes.
const stepsPerSeed = 50

// errBroken is an invariant the simulation found broken.
var errBroken = errors.New("broken")

func TestSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("sim: the simulation does not run under -short")
	}
	seeds := make([]uint64, 0, *seedsFlag)
	if *seedFlag != 0 {
		seeds = append(seeds, *seedFlag)
	} else {
		for s := range *seedsFlag {
			seeds = append(seeds, uint64(s+1))
		}
	}
	start := time.Now()
	injected := 0
	for _, seed := range seeds {
		n, err := simulate(t.Context(), seed, filepath.Join(t.TempDir(), "sim.db"))
		injected += n
		if err != nil {
			t.Fatalf("seed %d: %v\nreproduce: go test ./internal/sim -run TestSimulation -seed %d -v", seed, err, seed)
		}
	}
	t.Logf("%d seeds of %d steps, %d store failures injected, in %s", len(seeds), stepsPerSeed, injected,
		time.Since(start).Round(time.Millisecond))
}

// simulate runs one seed on a fresh database file and returns how many store failures it
// injected, or the first broken invariant with the steps that led to it.
func simulate(ctx context.Context, seed uint64, db string) (int, error) {
	w := &world{ctx: ctx, rng: rand.New(rand.NewPCG(seed, seed)), db: db,
		clock: testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))}
	if err := w.open(); err != nil {
		return 0, err
	}
	defer func() { w.st.Close() }()
	creds, err := w.svc.CreateApp(ctx, "Sim")
	if err != nil {
		return 0, err
	}
	w.appID = creds.AppID
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	injected := 0
	for i := range stepsPerSeed {
		if w.rng.IntN(15) == 0 {
			w.trace = append(w.trace, "crash")
			if err := w.crash(); err != nil {
				return injected, err
			}
		}
		pick := w.rng.IntN(total)
		o := ops[0]
		for _, o = range ops {
			if pick -= o.weight; pick < 0 {
				break
			}
		}
		if w.rng.IntN(5) == 0 {
			w.faulty.failAt = 1 + w.rng.IntN(12)
		}
		fired := w.faulty.fired
		err := w.step(o.name, o.atomic, o.run)
		injected += w.faulty.fired - fired
		if err != nil {
			return injected, fmt.Errorf("step %d (%s): %w\nsteps: %s", i, o.name, err, strings.Join(w.trace, ", "))
		}
	}
	if err := w.finish(); err != nil {
		return injected, fmt.Errorf("after the last step: %w\nsteps: %s", err, strings.Join(w.trace, ", "))
	}
	return injected, nil
}

// step runs one operation and checks what it did: a failure injected into an atomic operation
// must leave the ledger as it was, any other error must be a refusal of the service's
// vocabulary, and the ledger must hold its invariants afterwards.
func (w *world) step(name string, atomic bool, run func(*world) error) error {
	before, err := w.snapshot()
	if err != nil {
		return err
	}
	armed := w.faulty.failAt
	err = run(w)
	w.faulty.failAt = 0
	var refusal *payouts.Error
	outcome := "ok"
	switch {
	case err == nil:
	case errors.Is(err, errInjected):
		outcome = fmt.Sprintf("failed at statement %d", armed)
		if after, err := w.snapshot(); err != nil {
			return err
		} else if atomic && !reflect.DeepEqual(before, after) {
			return fmt.Errorf("%w: the failed request changed the ledger", errBroken)
		}
	case errors.As(err, &refusal) && refusal.Code != payouts.EResourceBusy:
		outcome = refusal.Code
	default:
		return fmt.Errorf("error a client would see as a 500: %w", err)
	}
	w.trace = append(w.trace, name+": "+outcome)
	return w.svc.CheckLedger(w.ctx, w.appID)
}

// snapshot is the app's ledger as stored.
func (w *world) snapshot() ([]ledger.Account, error) {
	accounts, _, err := w.st.LedgerSnapshot(w.ctx, w.appID)
	return accounts, err
}

// finish lets every payout on a rail settle, with no more faults, and checks each one ended
// once.
func (w *world) finish() error {
	for range 3 {
		w.clock.Advance(time.Hour)
		if err := w.tick(); err != nil {
			return err
		}
	}
	if err := w.svc.CheckLedger(w.ctx, w.appID); err != nil {
		return err
	}
	list, err := w.svc.ListTransfers(w.ctx, w.appID, payouts.Page{Limit: payouts.MaxLimit},
		payouts.TransferFilter{Type: payouts.TransferPayout})
	if err != nil {
		return err
	}
	for _, t := range list.Data {
		full, err := w.svc.GetTransfer(w.ctx, w.appID, t.ID)
		if err != nil {
			return err
		}
		finals := 0
		for _, h := range full.StatusHistory {
			if h.Status == payouts.TransferCompleted || h.Status == payouts.TransferFailed {
				finals++
			}
		}
		switch full.Status {
		case payouts.TransferCompleted, payouts.TransferFailed:
			if finals != 1 {
				return fmt.Errorf("%w: payout %s history %v: want one final transition", errBroken, t.ID, full.StatusHistory)
			}
		case payouts.TransferFlagged: // waits for a review that never came
		default:
			return fmt.Errorf("%w: payout %s is still %s an hour after its rail's delay", errBroken, t.ID, full.Status)
		}
	}
	return nil
}
